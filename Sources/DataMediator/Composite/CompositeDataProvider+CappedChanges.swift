/// A capped child's changes in the composite's terms: what its first items (and its `more`
/// cell) went through, write by write, so that a screen showing "the 3 newest" applies a
/// write in place instead of reloading.
extension CompositeDataProvider {
    /// One item of a capped child as the composite tracks it: its id, its position in the
    /// child's view, and how the child shows it.
    private struct Tracked {
        let id: String
        let entry: ListEntry
    }

    /// The changes of capped list child `index` after `since`, in the composite's ids: for
    /// each write, the items that left the child's first `cap` (deletes), those that
    /// entered them or moved among them (inserts and moves, placed among them), updates of
    /// those that stayed, and the insert, delete or update of the `more` cell whose cursor
    /// follows the last of them. Nil when they cannot be named item by item: the child
    /// keeps no change log, answers `reload`, logged a change without the row it needs,
    /// has more than `limit` changes (or more than its log reads at once), or its reads
    /// keep disagreeing with its log.
    ///
    /// The child's first items at `since` are found from its first `cap` + n + 1 items now
    /// (n changes): every one of them that no change touched is among those, and the
    /// changed ones are put back where their logged rows say; the writes are then replayed
    /// on that stretch, whose first `cap` + 1 items are the child's at every version.
    func cappedChanges(of index: Int, since: Int64, limit: Int) async throws -> [Change]? {
        let child = children[index]
        guard case .list(let adapter, let view) = child.content, let cap = child.cap, let log = adapter.changeLog
        else { return nil }
        // A composite's changes are its children's, merged in its ids, not a log of rows
        // whose old values place them: nothing to replay (its changes were taken for a
        // list's, and a capped composite child answered wrong deletes and `more` cells).
        // Anything written to it since `since` is a `reload`.
        if log is CompositeDataProvider {
            return try await adapter.changes(of: view, since: since, limit: 1).entries.isEmpty ? [] : nil
        }
        for _ in 0..<3 {
            let window = try await log.changes(of: view, since: since, limit: limit + 1)
            // A read its log cut short (``ChangeWindow/isCut``: large items) is more than
            // one answer replays.
            guard window.changes.count <= limit, !window.isCut,
                window.changes.allSatisfy({ change in
                    switch change.operation {
                    case .reload: false
                    case .insert: change.item != nil
                    case .move, .update: change.item != nil && change.old != nil
                    case .delete: change.old != nil
                    }
                })
            else { return nil }
            // No write reached the child's view: nothing to replay, and its first items
            // (`cap` of them, 1,000 say) are not read (a composite of many capped children,
            // of which one write touches one, reads that one).
            if window.changes.isEmpty { return [] }
            let top = try await adapter.entryWindow(
                of: view,
                from: nil,
                inclusive: false,
                limit: cap + window.changes.count + 1
            )
            // The first items must be those of the log's last version: later writes to
            // other lists of the store move the version but not this view.
            if top.version < window.version { continue }
            if top.version > window.version,
                try await !log.changes(of: view, since: window.version, limit: 1).changes.isEmpty
            {
                continue
            }
            return try await replay(window.changes, from: top.entries, child: index, adapter: adapter, view: view)
        }
        return nil
    }

    /// Puts the child's stretch `now` back to where it stood before `changes`, then replays
    /// them, translating what each did to the child's first items.
    private func replay(
        _ changes: [Change],
        from now: [ListEntry],
        child index: Int,
        adapter: ListAdapter,
        view: View
    ) async throws -> [Change] {
        let child = children[index]
        let cap = child.cap ?? Int.max
        let presenter = adapter.presenter(for: view)
        func tracked(_ item: Item) -> Tracked {
            let section = view.section(of: item)
            let entry = ListEntry(
                cell: presenter.cell(for: item),
                sectionID: section.id,
                sectionTitle: section.title,
                position: view.position(of: item)
            )
            return Tracked(id: entry.cell.id, entry: entry)
        }
        func place(_ item: Tracked, in stretch: inout [Tracked]) {
            var low = 0
            var high = stretch.count
            while low < high {
                let middle = (low + high) / 2
                if view.compare(stretch[middle].entry.position, item.entry.position) < 0 {
                    low = middle + 1
                } else {
                    high = middle
                }
            }
            stretch.insert(item, at: low)
        }
        var stretch = now.map { Tracked(id: $0.cell.id, entry: $0) }
        for change in changes.reversed() {
            switch change.operation {
            case .insert:
                stretch.removeAll { $0.id.isExactly(change.id) }
            case .delete, .move, .update:
                // An update may change sort values that keep the item's place (a `move`
                // is a change of neighbours): its old row says where it stood.
                stretch.removeAll { $0.id.isExactly(change.id) }
                if let old = change.old { place(tracked(old), in: &stretch) }
            case .reload:
                break
            }
        }
        let leading = try await lastSection(before: index)
        var translated: [Change] = []
        for change in changes {
            let before = Array(stretch.prefix(cap + 1))
            stretch.removeAll { $0.id.isExactly(change.id) }
            if change.operation != .delete, let item = change.item { place(tracked(item), in: &stretch) }
            let after = Array(stretch.prefix(cap + 1))
            translated += difference(from: before, to: after, by: change, child: index, cap: cap, leading: leading)
        }
        return translated
    }

    /// The composite's changes that turn the child's first items `before` into `after`
    /// (each up to `cap` + 1 items: the one past the cap tells whether `more` shows);
    /// `leading` is the last section the children before it show.
    private func difference(
        from before: [Tracked],
        to after: [Tracked],
        by change: Change,
        child index: Int,
        cap: Int,
        leading: String?
    ) -> [Change] {
        let child = children[index]
        let prefix = child.name + "/"
        let shownBefore = before.prefix(cap)
        let shownAfter = Array(after.prefix(cap))
        let idsBefore = Set(shownBefore.map { ExactText($0.id) })
        let idsAfter = Set(shownAfter.map { ExactText($0.id) })
        var changes: [Change] = []
        func make(_ operation: Change.Operation, _ item: Item?, id: String, _ placement: Placement?) -> Change {
            Change(operation: operation, version: change.version, id: id, item: item, placement: placement)
        }
        for gone in shownBefore where !idsAfter.contains(ExactText(gone.id)) {
            changes.append(make(.delete, nil, id: prefix + gone.id, nil))
        }
        for (place, shown) in shownAfter.enumerated() {
            let entered = !idsBefore.contains(ExactText(shown.id))
            let moved = shown.id.isExactly(change.id) && change.operation == .move && !entered
            guard entered || moved else {
                if shown.id.isExactly(change.id), change.operation == .update {
                    changes.append(make(.update, composed(shown, child: index), id: prefix + shown.id, nil))
                }
                continue
            }
            let sectionStart =
                shownAfter[..<place].lastIndex { !$0.entry.sectionID.isExactly(shown.entry.sectionID) }
                .map { $0 + 1 } ?? 0
            let placement = Placement(
                section: prefix + shown.entry.sectionID,
                sectionAfter: sectionStart > 0 ? prefix + shownAfter[sectionStart - 1].entry.sectionID : leading,
                after: place > sectionStart ? prefix + shownAfter[place - 1].id : nil
            )
            changes.append(
                make(entered ? .insert : .move, composed(shown, child: index), id: prefix + shown.id, placement)
            )
        }
        guard child.more else { return changes }
        let moreBefore = before.count > cap
        let moreAfter = after.count > cap
        let lastMoved = shownBefore.last?.entry.position != shownAfter.last?.entry.position
        if moreAfter, let last = shownAfter.last, !moreBefore || lastMoved,
            let more = moreItem(
                of: Resume(child: index, served: cap, inner: last.entry.position, innerInclusive: false),
                after: last.entry
            )
        {
            let placement = Placement(
                section: child.moreID,
                sectionAfter: prefix + last.entry.sectionID,
                after: nil
            )
            changes.append(make(moreBefore ? .update : .insert, more, id: child.moreID, moreBefore ? nil : placement))
        } else if moreBefore, !moreAfter {
            changes.append(make(.delete, nil, id: child.moreID, nil))
        }
        return changes
    }

    /// A tracked item of child `index` as the composite shows it.
    private func composed(_ shown: Tracked, child index: Int) -> Item {
        Self.item(shown.entry, child: children[index], index: index, served: 0)
    }
}
