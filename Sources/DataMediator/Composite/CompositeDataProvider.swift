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
    /// everything the composite shows: looked up in the child the id names alone, then
    /// placed after the children before it (counted only when the item is found).
    public func locate(id: String, in view: View) async throws -> Location? {
        guard let index = children.firstIndex(where: { id == $0.moreID || id.hasPrefix($0.name + "/") }) else {
            return nil
        }
        let child = children[index]
        let inner: (item: Item, position: Int, sectionIndex: Int, itemIndex: Int)
        if id == child.moreID {
            let shown = try await shownSections(of: child)
            guard shown.hasMore, case .list(let adapter, let childView) = child.content, let cap = child.cap,
                let last = try await adapter.entries(of: childView, from: nil, inclusive: false, limit: cap).last,
                let more = try await moreItem(
                    of: Resume(child: index, served: cap, inner: last.position, innerInclusive: false)
                )
            else { return nil }
            inner = (more, cap, shown.sections.count - 1, 0)
        } else {
            guard let (entry, location) = try await entry(of: child, id: String(id.dropFirst(child.name.count + 1))),
                location.position < child.cap ?? Int.max
            else { return nil }
            inner = (
                Self.item(entry, child: child, index: index, served: location.position + 1),
                location.position, location.sectionIndex, location.itemIndex
            )
        }
        var itemsBefore = 0
        var sectionsBefore = 0
        for before in children[..<index] {
            let shown = try await shownSections(of: before)
            itemsBefore += shown.items
            sectionsBefore += shown.sections.count
        }
        return Location(
            item: inner.item,
            position: itemsBefore + inner.position,
            sectionIndex: sectionsBefore + inner.sectionIndex,
            itemIndex: inner.itemIndex,
            version: try await currentVersion()
        )
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
}
