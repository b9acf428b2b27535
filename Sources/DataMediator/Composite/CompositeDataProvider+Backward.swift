/// A composite read backward: its children from the last to the first, each from its end
/// (a capped child from its cap, with its `more` cell first when it has one), or from the
/// item a page's `prev` names.
extension CompositeDataProvider {
    /// Up to `limit` items before (or at and before) `start`, nearest first, walking the
    /// children backward; a page read so may cross from one child into the one before.
    ///
    /// A capped child is read forward up to one item past its cap (caps are a screen's
    /// few rows), since what it shows is its first items; any other child is read
    /// backward on its own view.
    public func window(of view: View, before start: Position?, inclusive: Bool, limit: Int) async throws -> Window {
        var items: [Item] = []
        var known = [Int64?](repeating: nil, count: children.count)
        var point: BackwardPoint?
        if let start {
            let resume = try Resume(start, inclusive: false, childCount: children.count)
            guard resume.child < children.count else { throw Self.badCursor() }
            point = BackwardPoint(child: resume.child, served: resume.served, inner: resume.inner, inclusive: inclusive)
        }
        var child = point?.child ?? children.count - 1
        while items.count < limit, child >= 0 {
            let read = try await shownBackward(
                of: child,
                from: child == point?.child ? point : nil,
                limit: limit - items.count
            )
            if let version = read.version { known[child] = min(known[child] ?? version, version) }
            items += read.items
            child -= 1
        }
        return Window(items: items, version: try await currentVersion(knowing: known))
    }

    /// Where a backward read starts within a child: how many of its items were shown up to
    /// the starting item, its position in the child, and whether the starting item is read.
    private struct BackwardPoint {
        let child: Int
        let served: Int
        let inner: Position?
        let inclusive: Bool
    }

    /// Up to `limit` of the items child `index` shows, nearest first: before `point` when
    /// given, else from the child's last shown item.
    private func shownBackward(
        of index: Int,
        from point: BackwardPoint?,
        limit: Int
    ) async throws -> (items: [Item], version: Int64?) {
        let child = children[index]
        switch child.content {
        case .section(_, _, let cells):
            var end = cells.count
            if let point {
                guard case .integer(let at)? = point.inner?.values.first, point.inner?.values.count == 1 else {
                    throw Self.badCursor()
                }
                end = max(0, min(cells.count, Int(clamping: at) + (point.inclusive ? 1 : 0)))
            }
            let entries = sectionEntries(of: child, in: max(0, end - limit)..<end)
            return (entries.reversed().map { Self.item($0.entry, child: child, index: index, served: $0.served) }, nil)
        case .list(let adapter, let view):
            if let cap = child.cap {
                return try await cappedBackward(of: index, adapter: adapter, view: view, cap: cap, from: point, limit)
            }
            guard let point else {
                let read = try await adapter.entryWindow(of: view, before: nil, inclusive: false, limit: limit)
                return (read.entries.map { Self.item($0, child: child, index: index, served: 0) }, read.version)
            }
            let read = try await adapter.entryWindow(
                of: view,
                before: point.inner,
                inclusive: point.inclusive,
                limit: limit
            )
            var served = point.served + (point.inclusive ? 1 : 0)
            let items = read.entries.map { entry in
                served = max(0, served - 1)
                return Self.item(entry, child: child, index: index, served: served)
            }
            return (items, read.version)
        }
    }

    /// The items a capped list child shows before `point` (or from its end), nearest first:
    /// its first `cap` entries, and its `more` cell after them when it has more.
    private func cappedBackward(
        of index: Int,
        adapter: ListAdapter,
        view: View,
        cap: Int,
        from point: BackwardPoint?,
        _ limit: Int
    ) async throws -> (items: [Item], version: Int64?) {
        let child = children[index]
        let read = try await adapter.entryWindow(of: view, from: nil, inclusive: false, limit: cap + 1)
        let shown = Array(read.entries.prefix(cap))
        var items: [Item] = []
        for (offset, entry) in shown.enumerated() {
            items.append(Self.item(entry, child: child, index: index, served: offset + 1))
        }
        if child.more, read.entries.count > cap, let last = shown.last,
            let more = moreItem(
                of: Resume(child: index, served: cap, inner: last.position, innerInclusive: false),
                after: last
            )
        {
            items.append(more)
        }
        // The items shown before the starting point (at it too when the read includes it):
        // found by position among the items the child shows now; a point past the cap is
        // its `more` cell, which follows them all.
        var end = items.count
        if let point {
            if point.served > cap {
                end = min(items.count, cap + (point.inclusive ? 1 : 0))
            } else if let inner = point.inner {
                guard inner.values.count == view.sort.count else { throw Self.badCursor() }
                end =
                    shown.prefix { entry in
                        let order = adapter.compare(entry.position, inner, in: view)
                        return order < 0 || (order == 0 && point.inclusive)
                    }.count
            } else {
                end = 0
            }
        }
        return (Array(items[max(0, end - limit)..<end].reversed()), read.version)
    }

    /// The entries of a static section child at `range`, each with how many of the
    /// section's cells were shown up to it.
    private func sectionEntries(of child: CompositeChild, in range: Range<Int>) -> [(entry: ListEntry, served: Int)] {
        guard case .section(let id, let title, let cells) = child.content else { return [] }
        return range.map { index in
            (
                ListEntry(
                    cell: cells[index],
                    sectionID: id,
                    sectionTitle: title,
                    position: Position([.integer(Int64(index))])
                ), index + 1
            )
        }
    }
}
