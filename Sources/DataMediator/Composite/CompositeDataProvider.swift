import Crypto

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
            fields: [],
            composedOf: .array(children.map(\.shape)),
            typedParts: .array(children.map(\.typedShape))
        )
    }

    // MARK: - Sections and items

    /// The sections the composite shows, in order, with their counts and titles.
    public func sectionCounts(of view: View) async throws -> SectionCounts {
        var entries: [SectionCounts.Entry] = []
        var known = [Int64?](repeating: nil, count: children.count)
        for (index, child) in children.enumerated() {
            let shown = try await shownSections(of: child)
            known[index] = shown.version
            for section in shown.sections {
                entries.append(
                    SectionCounts.Entry(key: .string(section.id), count: section.count, title: section.title)
                )
            }
        }
        return SectionCounts(entries: entries, version: try await currentVersion(knowing: known))
    }

    /// The item with `id` (`child/id`, or a child's `more` cell) and its place among
    /// everything the composite shows: looked up in the child the id names alone, then
    /// placed after the children before it (counted only when the item is found).
    public func locate(id: String, in view: View) async throws -> Location? {
        guard
            let index = children.firstIndex(where: {
                id.isExactly($0.moreID) || id.afterExactPrefix($0.name + "/") != nil
            })
        else { return nil }
        let child = children[index]
        let inner: (item: Item, position: Int, sectionIndex: Int, itemIndex: Int)
        var known = [Int64?](repeating: nil, count: children.count)
        if id.isExactly(child.moreID) {
            let shown = try await shownSections(of: child)
            known[index] = shown.version
            guard shown.hasMore, case .list(let adapter, let childView) = child.content, let cap = child.cap,
                let last = try await adapter.entries(of: childView, from: nil, inclusive: false, limit: cap).last,
                let more = moreItem(
                    of: Resume(child: index, served: cap, inner: last.position, innerInclusive: false),
                    after: last
                )
            else { return nil }
            inner = (more, cap, shown.sections.count - 1, 0)
        } else {
            guard let childID = id.afterExactPrefix(child.name + "/"),
                let (entry, location) = try await entry(of: child, id: childID),
                location.position < child.cap ?? Int.max
            else { return nil }
            if case .list = child.content { known[index] = location.version }
            inner = (
                Self.item(entry, child: child, index: index, served: location.position + 1),
                location.position, location.sectionIndex, location.itemIndex
            )
        }
        var itemsBefore = 0
        var sectionsBefore = 0
        for (place, before) in children[..<index].enumerated() {
            let shown = try await shownSections(of: before)
            known[place] = shown.version
            itemsBefore += shown.items
            sectionsBefore += shown.sections.count
        }
        return Location(
            item: inner.item,
            position: itemsBefore + inner.position,
            sectionIndex: sectionsBefore + inner.sectionIndex,
            itemIndex: inner.itemIndex,
            version: try await currentVersion(knowing: known)
        )
    }

    /// The entry with `id` in a child and its place within the child.
    private func entry(of child: CompositeChild, id: String) async throws -> (ListEntry, Location)? {
        switch child.content {
        case .list(let adapter, let view):
            return try await adapter.entry(id: id, in: view)
        case .section(let sectionID, let title, let cells):
            guard let index = cells.firstIndex(where: { ExactText($0.id) == ExactText(id) }) else { return nil }
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
    /// when it has one), how many items they hold, whether a `more` cell is among them, and
    /// the version they were counted at (nil for a static section).
    func shownSections(
        of child: CompositeChild
    ) async throws
        -> (sections: [SectionInfo.Section], items: Int, hasMore: Bool, version: Int64?)
    {
        let all: [SectionInfo.Section]
        var version: Int64?
        switch child.content {
        case .list(let adapter, let view):
            let info = try await adapter.sectionInfo(of: view)
            all = info.sections
            version = info.version
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
        return (sections, items, hasMore, version)
    }

    // MARK: - Pages

    /// Up to `limit` items after (or from) `start`, walking the children in order.
    ///
    /// A capped list child is read from its start, its cap and one item more (caps are a
    /// screen's few rows), and resumed by position among the items it shows now: a write
    /// that pushes an item out of its first items or moves one within them is seen by the
    /// next page read, as any list's page sees it. The page's version is the least its
    /// reads of changing children carried (``currentVersion(knowing:)``).
    public func window(of view: View, from start: Position?, inclusive: Bool, limit: Int) async throws -> Window {
        var resume = try Resume(start, inclusive: inclusive, childCount: children.count)
        var items: [Item] = []
        var known = [Int64?](repeating: nil, count: children.count)
        while items.count < limit, resume.child < children.count {
            let child = children[resume.child]
            if let cap = child.cap, case .list(let adapter, let childView) = child.content {
                if let inner = resume.inner, inner.values.count != childView.sort.count { throw Self.badCursor() }
                let read = try await adapter.entryWindow(of: childView, from: nil, inclusive: false, limit: cap + 1)
                known[resume.child] = min(known[resume.child] ?? read.version, read.version)
                items += cappedItems(
                    of: resume,
                    read.entries,
                    cap: cap,
                    in: (adapter, childView),
                    limit: limit - items.count
                )
                resume.nextChild()
                continue
            }
            if let cap = child.cap, resume.served >= cap {
                resume.nextChild()
                continue
            }
            let take = min(limit - items.count, child.cap.map { $0 - resume.served } ?? Int.max)
            let read = try await self.entries(
                of: child,
                from: resume.inner,
                inclusive: resume.innerInclusive,
                limit: take
            )
            if let version = read.version { known[resume.child] = min(known[resume.child] ?? version, version) }
            for entry in read.entries.prefix(take) {
                resume.served += 1
                items.append(Self.item(entry, child: child, index: resume.child, served: resume.served))
                resume.inner = entry.position
                resume.innerInclusive = false
            }
            if read.entries.count < take { resume.nextChild() }
        }
        return Window(items: items, version: try await currentVersion(knowing: known))
    }

    /// Up to `limit` of what the capped list child `resume` stands at shows from `resume` on:
    /// its first `cap` of `entries` (read from its start, one more than its cap) after the
    /// entry `resume` names (from it when inclusive), found by position in `list`, then its
    /// `more` cell when it has one and more items. A `resume` past the cap names the `more`
    /// cell: from it, only that cell.
    private func cappedItems(
        of resume: Resume,
        _ entries: [ListEntry],
        cap: Int,
        in list: (adapter: ListAdapter, view: View),
        limit: Int
    ) -> [Item] {
        let child = children[resume.child]
        let shown = Array(entries.prefix(cap))
        // How many items the cursor had passed, its own counted (Resume leaves an inclusive
        // start's own item uncounted).
        let passed = resume.served + (resume.innerInclusive ? 1 : 0)
        var first = 0
        if passed > cap {
            first = shown.count
        } else if let inner = resume.inner {
            first =
                shown.firstIndex { entry in
                    let order = list.adapter.compare(entry.position, inner, in: list.view)
                    return order > 0 || (order == 0 && resume.innerInclusive)
                } ?? shown.count
        }
        var items = shown.enumerated().dropFirst(first).prefix(limit).map { offset, entry in
            Self.item(entry, child: child, index: resume.child, served: offset + 1)
        }
        let afterMore = passed > cap && !resume.innerInclusive
        if items.count < limit, child.more, entries.count > cap, !afterMore, let last = shown.last,
            let more = moreItem(
                of: Resume(child: resume.child, served: cap, inner: last.position, innerInclusive: false),
                after: last
            )
        {
            items.append(more)
        }
        return items
    }

    /// The composite's version: the greatest of its children's. Children that change
    /// share one version space (the lists of one store), and static sections and files
    /// stay at 0, so it is the store's version, and it moves with every child's write.
    public func currentVersion() async throws -> Int64 {
        try await currentVersion(knowing: [])
    }

    /// The version of what a page, a lookup or the sections read, where `known[i]` is the
    /// version a read of child `i` carried: the least of those of the children that change
    /// (their reads are not one snapshot; a write between two of them is in the later one
    /// only, and a client that follows the changes from the least applies it again, in
    /// order, where the greatest would skip it for good); when no such child was read, the
    /// composite's version now, only the children not read asked.
    func currentVersion(knowing known: [Int64?]) async throws -> Int64 {
        let read = children.indices.compactMap { index in
            index < known.count && children[index].changes ? known[index] : nil
        }
        if let least = read.min() { return least }
        var version: Int64 = 0
        for (index, child) in children.enumerated() {
            if index < known.count, let read = known[index] {
                version = max(version, read)
            } else {
                version = max(version, try await child.version())
            }
        }
        return version
    }

    /// Up to `limit` entries of a child after `start`, with the version a list child's read
    /// carried (nil for a static section).
    private func entries(
        of child: CompositeChild,
        from start: Position?,
        inclusive: Bool,
        limit: Int
    ) async throws
        -> (entries: [ListEntry], version: Int64?)
    {
        guard limit > 0 else { return ([], nil) }
        switch child.content {
        case .list(let adapter, let view):
            let read = try await adapter.entryWindow(of: view, from: start, inclusive: inclusive, limit: limit)
            return (read.entries, read.version)
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
            let entries = cells.indices.dropFirst(first).prefix(limit).map { index in
                ListEntry(
                    cell: cells[index],
                    sectionID: id,
                    sectionTitle: title,
                    position: Position([.integer(Int64(index))])
                )
            }
            return (entries, nil)
        }
    }

    /// The `more` cell of the capped list child `resume` stands at, continuing its list
    /// after `lastEntry`, the last entry shown.
    func moreItem(of resume: Resume, after lastEntry: ListEntry) -> Item? {
        let child = children[resume.child]
        guard case .list(let adapter, let view) = child.content else { return nil }
        let cursor = adapter.cursor(after: lastEntry, in: view)
        var fields: [String: JSONValue] = [
            "list": .string(adapter.definition.name),
            "view": .string(view.name),
            "cursor": .string(cursor),
        ]
        // The parameters the child fixes, as a query string gives them: the cursor is bound
        // to them, so the list's page after it is asked with them.
        let parameters = child.parameters
        if !parameters.isEmpty { fields["params"] = .object(Dictionary(uniqueKeysWithValues: parameters)) }
        let data: JSONValue = .object(fields)
        // Its `rev` follows its cursor, as an item's follows its data: a client that keeps
        // cells by id and `rev` takes the moved cursor when `changes` update it.
        let rev = Hex.string(SHA256.hash(data: Array(cursor.utf8)).prefix(8))
        return Item(
            layout: Self.layout,
            values: [
                Self.position(child: resume.child, served: resume.served + 1, inner: lastEntry.position),
                .string(child.moreID), .string(child.moreID), .null,
                .string(CompositeChild.moreType), .string(rev), data,
            ]
        )
    }
}
