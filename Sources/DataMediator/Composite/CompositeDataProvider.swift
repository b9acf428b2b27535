/// The provider of a composite list: it walks its children in order, each from where the
/// last page left it, as a root section delegate dispatches to its children.
///
/// Its items are the children's cells with their ids and section ids prefixed by the
/// child's name (`child/id`, `child/section`), so a whole screen's identifiers stay unique
/// even when two children show the same item. Each item's position is
/// `[child index, items of that child shown up to it, its position in the child]`, so one
/// signed cursor carries the child and the child's own position. A capped child stops at
/// its cap; with `more`, a `more` cell (in a section of its own) follows it when the child
/// has more items, holding a cursor that continues the child's own list.
public struct CompositeDataProvider: DataProvider, SectionInfoProvider, ChangeLog {
    /// The fields of a composite item.
    static let layout = ItemLayout(["position", "id", "section", "section_title", "type", "rev", "data"])

    /// The children, in order.
    public let children: [CompositeChild]
    /// The composite's one view: items in the children's order, sectioned by their
    /// prefixed section ids, titled by the children's section titles.
    public let view: View

    /// Creates the provider of a composite with one view named `viewName`.
    public init(children: [CompositeChild], viewName: String = "all") {
        self.children = children
        var types: [String] = []
        for type in children.flatMap(\.cellTypes) where !types.contains(type) { types.append(type) }
        self.view = View(
            name: viewName,
            isDefault: true,
            sort: [SortKey("position")],
            idField: "position",
            section: SectionRule(field: "section", titleField: "section_title"),
            cellType: .field("type", types: types, fallback: types.first ?? "item"),
            fields: []
        )
    }

    // MARK: - Sections and items

    /// The sections the composite shows, in order, with their counts and titles.
    public func sectionCounts(of view: View) async throws -> SectionCounts {
        var entries: [SectionCounts.Entry] = []
        for child in children {
            for section in try await shownSections(of: child).sections {
                entries.append(
                    SectionCounts.Entry(key: .string(section.id), count: section.count, title: section.title)
                )
            }
        }
        return SectionCounts(entries: entries, version: try await currentVersion())
    }

    /// The item with `id` (`child/id`, or a child's `more` cell) and its place among
    /// everything the composite shows.
    public func locate(id: String, in view: View) async throws -> Location? {
        var itemsBefore = 0
        var sectionsBefore = 0
        for (index, child) in children.enumerated() {
            let shown = try await shownSections(of: child)
            if id == child.moreID {
                guard shown.hasMore, case .list(let adapter, let childView) = child.content, let cap = child.cap,
                    let last = try await adapter.entries(of: childView, from: nil, inclusive: false, limit: cap).last,
                    let more = try await moreItem(
                        of: Resume(child: index, served: cap, inner: last.position, innerInclusive: false)
                    )
                else { return nil }
                return Location(
                    item: more,
                    position: itemsBefore + cap,
                    sectionIndex: sectionsBefore + shown.sections.count - 1,
                    itemIndex: 0,
                    version: try await currentVersion()
                )
            }
            let prefix = child.name + "/"
            if id.hasPrefix(prefix) {
                let childID = String(id.dropFirst(prefix.count))
                guard let (entry, location) = try await entry(of: child, id: childID),
                    location.position < child.cap ?? Int.max
                else { return nil }
                return Location(
                    item: Self.item(entry, child: child, index: index, served: location.position + 1),
                    position: itemsBefore + location.position,
                    sectionIndex: sectionsBefore + location.sectionIndex,
                    itemIndex: location.itemIndex,
                    version: try await currentVersion()
                )
            }
            itemsBefore += shown.items
            sectionsBefore += shown.sections.count
        }
        return nil
    }

    /// The entry with `id` in a child and its place within the child.
    private func entry(of child: CompositeChild, id: String) async throws -> (ListEntry, Location)? {
        switch child.content {
        case .list(let adapter, let view):
            return try await adapter.entry(id: id, in: view)
        case .section(let sectionID, let title, let cells):
            guard let index = cells.firstIndex(where: { $0.id == id }) else { return nil }
            let entry = ListEntry(
                cell: cells[index],
                sectionID: sectionID,
                sectionTitle: title,
                position: Position([.integer(Int64(index))])
            )
            return (entry, Location(item: Item([:]), position: index, sectionIndex: 0, itemIndex: index, version: 0))
        }
    }

    /// The sections a child shows (ids prefixed; cut at its cap; its `more` section last
    /// when it has one), how many items they hold, and whether a `more` cell is among them.
    func shownSections(
        of child: CompositeChild
    ) async throws
        -> (sections: [SectionInfo.Section], items: Int, hasMore: Bool)
    {
        let all: [SectionInfo.Section]
        switch child.content {
        case .list(let adapter, let view):
            all = try await adapter.sectionInfo(of: view).sections
        case .section(let id, let title, let cells):
            all = cells.isEmpty ? [] : [SectionInfo.Section(id: id, title: title, count: cells.count)]
        }
        var sections: [SectionInfo.Section] = []
        var items = 0
        let cap = child.cap ?? Int.max
        for section in all where items < cap {
            let count = min(section.count, cap - items)
            sections.append(SectionInfo.Section(id: child.name + "/" + section.id, title: section.title, count: count))
            items += count
        }
        let total = all.reduce(0) { $0 + $1.count }
        let hasMore = child.more && child.cap != nil && total > cap
        if hasMore {
            sections.append(SectionInfo.Section(id: child.moreID, title: nil, count: 1))
            items += 1
        }
        return (sections, items, hasMore)
    }

    // MARK: - Pages

    /// Up to `limit` items after (or from) `start`, walking the children in order.
    public func window(of view: View, from start: Position?, inclusive: Bool, limit: Int) async throws -> Window {
        var resume = try Resume(start, inclusive: inclusive, childCount: children.count)
        var items: [Item] = []
        while items.count < limit, resume.child < children.count {
            let child = children[resume.child]
            if let cap = child.cap, resume.served >= cap {
                if resume.served == cap, child.more, let more = try await moreItem(of: resume) {
                    items.append(more)
                    resume.served += 1
                } else {
                    resume.nextChild()
                }
                continue
            }
            let take = min(limit - items.count, child.cap.map { $0 - resume.served } ?? Int.max)
            let entries = try await self.entries(
                of: child,
                from: resume.inner,
                inclusive: resume.innerInclusive,
                limit: take
            )
            for entry in entries {
                resume.served += 1
                items.append(Self.item(entry, child: child, index: resume.child, served: resume.served))
                resume.inner = entry.position
                resume.innerInclusive = false
            }
            if entries.count < take { resume.nextChild() }
        }
        return Window(items: items, version: try await currentVersion())
    }

    /// The composite's version: the greatest of its children's. Children that change
    /// share one version space (the lists of one store), and static sections and files
    /// stay at 0, so it is the store's version, and it moves with every child's write.
    public func currentVersion() async throws -> Int64 {
        var version: Int64 = 0
        for child in children { version = max(version, try await child.version()) }
        return version
    }

    private func entries(
        of child: CompositeChild,
        from start: Position?,
        inclusive: Bool,
        limit: Int
    ) async throws
        -> [ListEntry]
    {
        guard limit > 0 else { return [] }
        switch child.content {
        case .list(let adapter, let view):
            return try await adapter.entries(of: view, from: start, inclusive: inclusive, limit: limit)
        case .section(let id, let title, let cells):
            let first: Int
            if let start {
                guard case .integer(let index)? = start.values.first, start.values.count == 1 else {
                    throw Self.badCursor()
                }
                first = max(0, Int(clamping: index) + (inclusive ? 0 : 1))
            } else {
                first = 0
            }
            return cells.indices.dropFirst(first).prefix(limit).map { index in
                ListEntry(
                    cell: cells[index],
                    sectionID: id,
                    sectionTitle: title,
                    position: Position([.integer(Int64(index))])
                )
            }
        }
    }

    /// The `more` cell of the capped child `resume` stands at, or nil when the child has
    /// nothing past its cap.
    private func moreItem(of resume: Resume) async throws -> Item? {
        let child = children[resume.child]
        guard case .list(let adapter, let view) = child.content,
            let last = resume.inner,
            try await !adapter.entries(of: view, from: last, inclusive: false, limit: 1).isEmpty,
            let lastEntry = try await adapter.entries(of: view, from: last, inclusive: true, limit: 1).first
        else { return nil }
        let data: JSONValue = .object([
            "list": .string(adapter.definition.name),
            "view": .string(view.name),
            "cursor": .string(adapter.cursor(after: lastEntry, in: view)),
        ])
        return Item(
            layout: Self.layout,
            values: [
                Self.position(child: resume.child, served: resume.served + 1, inner: last),
                .string(child.moreID), .string(child.moreID), .null,
                .string(CompositeChild.moreType), .string("0"), data,
            ]
        )
    }

    static func item(_ entry: ListEntry, child: CompositeChild, index: Int, served: Int) -> Item {
        Item(
            layout: layout,
            values: [
                position(child: index, served: served, inner: entry.position),
                .string(child.name + "/" + entry.cell.id),
                .string(child.name + "/" + entry.sectionID),
                entry.sectionTitle.map(JSONValue.string) ?? .null,
                .string(entry.cell.type),
                .string(entry.cell.rev),
                entry.cell.data,
            ]
        )
    }

    static func position(child: Int, served: Int, inner: Position?) -> JSONValue {
        .array([.integer(Int64(child)), .integer(Int64(served)), inner.map { .array($0.values) } ?? .null])
    }

    static func badCursor() -> DataMediatorError {
        DataMediatorError(.badCursor, "The cursor does not fit this composite list; reload from the first page.")
    }

    /// Where a window resumes: the child, how many of its items were shown, and its own position.
    struct Resume {
        var child: Int
        var served: Int
        var inner: Position?
        var innerInclusive: Bool

        init(child: Int, served: Int, inner: Position?, innerInclusive: Bool) {
            (self.child, self.served, self.inner, self.innerInclusive) = (child, served, inner, innerInclusive)
        }

        init(_ start: Position?, inclusive: Bool, childCount: Int) throws(DataMediatorError) {
            guard let start else {
                (child, served, inner, innerInclusive) = (0, 0, nil, false)
                return
            }
            guard start.values.count == 1, case .array(let parts) = start.values[0], parts.count == 3,
                case .integer(let child) = parts[0], case .integer(let served) = parts[1],
                child >= 0, served >= 0
            else { throw CompositeDataProvider.badCursor() }
            self.child = Int(clamping: min(child, Int64(childCount)))
            switch parts[2] {
            case .null: inner = nil
            case .array(let values): inner = Position(values)
            default: throw CompositeDataProvider.badCursor()
            }
            // An inclusive start shows the item it names again, so it is not counted yet.
            self.served = max(0, Int(clamping: served) - (inclusive ? 1 : 0))
            innerInclusive = inclusive
        }

        mutating func nextChild() {
            child += 1
            served = 0
            inner = nil
            innerInclusive = false
        }
    }
}

// MARK: - Changes

extension CompositeDataProvider {
    /// The children's changes after `since`, merged in version order (children in the
    /// composite's order within one version) and given the composite's ids: an item of
    /// child `c` is `c/id` in section `c/section`; a child's first section comes after the
    /// last section of the nearest earlier child that shows one.
    ///
    /// A change the composite cannot place item by item (in a capped child, whose window
    /// of first items moves, or a child that itself answers `reload`) makes the answer a
    /// single `reload` at the composite's version.
    public func changes(of view: View, since: Int64, limit: Int) async throws -> ChangeWindow {
        let version = try await currentVersion()
        try DataMediatorError.checkHistory(since: since, floor: 0, version: version)
        var merged: [(change: Change, child: Int)] = []
        // A child that has more changes than were read: the merge is whole only up to the
        // last version read from it.
        var complete = Int64.max
        var reload = false
        for (index, child) in children.enumerated() {
            guard case .list(let adapter, let childView) = child.content else { continue }
            let changes = try await adapter.changes(of: childView, since: since, limit: max(1, limit))
            if changes.entries.isEmpty { continue }
            if child.cap != nil || changes.entries.contains(where: { $0.operation == .reload }) {
                reload = true
                break
            }
            if changes.next != nil, let last = changes.entries.last { complete = min(complete, last.version) }
            for entry in changes.entries {
                merged.append((try await translate(entry, of: child, at: index), index))
            }
        }
        if reload {
            return ChangeWindow(
                changes: [Change(operation: .reload, version: version, id: "", item: nil, placement: nil)],
                version: version
            )
        }
        // The version was read before the children's changes: a write between the two reads
        // would put a change newer than the window's version in it, which a reader resuming
        // from that version would get again, while a write to a child read earlier would be
        // missing below it. Up to the version read first, every child's changes are whole.
        let ordered = merged.filter { $0.change.version <= min(complete, version) }.sorted {
            ($0.change.version, $0.child) < ($1.change.version, $1.child)
        }
        return ChangeWindow(changes: ordered.map(\.change), version: version)
    }

    /// A child's change in the composite's terms.
    private func translate(_ entry: ChangeSet.Entry, of child: CompositeChild, at index: Int) async throws -> Change {
        let prefix = child.name + "/"
        let item = entry.cell.map { cell in
            Self.item(
                ListEntry(
                    cell: cell,
                    sectionID: entry.placement?.section ?? "",
                    sectionTitle: nil,
                    position: Position([])
                ),
                child: child,
                index: index,
                served: 0
            )
        }
        var placement: Placement?
        if let inChild = entry.placement {
            let sectionAfter: String?
            if let before = inChild.sectionAfter {
                sectionAfter = prefix + before
            } else {
                sectionAfter = try await lastSection(before: index)
            }
            placement = Placement(
                section: prefix + inChild.section,
                sectionAfter: sectionAfter,
                after: inChild.after.map { prefix + $0 }
            )
        }
        return Change(
            operation: entry.operation,
            version: entry.version,
            id: prefix + entry.id,
            item: item,
            placement: placement
        )
    }

    /// The id of the last section the children before `index` show now; nil when none
    /// shows any.
    private func lastSection(before index: Int) async throws -> String? {
        for child in children[..<index].reversed() {
            if let last = try await shownSections(of: child).sections.last { return last.id }
        }
        return nil
    }
}
