import DataMediator

/// One write of one row, as an outline is carried over it: the row before and after the
/// write, the version the write produced, and where the row landed in each view.
struct OutlineWrite: Sendable {
    /// The row before the write; nil when it did not exist.
    let old: Item?
    /// The row after the write; nil when it was deleted.
    let new: Item?
    /// The version the write produced.
    let version: Int64
    /// By view binding, for the views the row is in after the write: where it landed (the
    /// section before its own, the item before it), as its change says.
    let placements: [String: Placement]
}

extension ViewOutline {
    /// This outline after `write`, at `stamp`: its section counts and mark indexes moved
    /// by the row that left the view and the row that entered it. Nil, for the outline to
    /// be read again, when the view's sections are not ordered by its sort's first field
    /// (a row could split one), when a new section's neighbour is not known, or when a gap
    /// between marks would grow past ``longestGap``. A row that becomes the view's first
    /// item (the newest of a newest-first view) gets a mark once ``spacing`` items stand
    /// before the first one, so a view written at its head is never read again for it.
    func applying(_ write: OutlineWrite, stamp: Int64) -> ViewOutline? {
        let old = write.old.flatMap { view.includes($0) ? $0 : nil }
        let new = write.new.flatMap { view.includes($0) ? $0 : nil }
        if let rule = view.section, old != nil || new != nil, view.sort.first?.field != rule.field { return nil }
        var entries = counts.entries
        var index = sectionIndex
        var marks = self.marks
        if let old {
            guard let section = index[ExactText(view.sectionID(of: old))] else { return nil }
            let entry = entries[section]
            if entry.count > 1 {
                entries[section] = SectionCounts.Entry(key: entry.key, count: entry.count - 1, title: entry.title)
            } else {
                entries.remove(at: section)
                index = Self.index(of: entries, in: view)
            }
            for mark in firstMark(after: view.position(of: old))..<marks.count { marks[mark].index -= 1 }
        }
        if let new {
            let id = view.sectionID(of: new)
            if let section = index[ExactText(id)] {
                let entry = entries[section]
                entries[section] = SectionCounts.Entry(key: entry.key, count: entry.count + 1, title: entry.title)
            } else {
                guard let placement = write.placements[view.binding] else { return nil }
                var at = 0
                if let before = placement.sectionAfter {
                    guard let previous = index[ExactText(before)] else { return nil }
                    at = previous + 1
                }
                let key = view.section.map { $0.key(for: new[$0.field]) } ?? .null
                entries.insert(SectionCounts.Entry(key: key, count: 1), at: at)
                index = Self.index(of: entries, in: view)
            }
            let position = view.position(of: new)
            var after = firstMark(after: position)
            for mark in after..<marks.count { marks[mark].index += 1 }
            if let placement = write.placements[view.binding], placement.after == nil, placement.sectionAfter == nil,
                after == 0, (marks.first?.index ?? 0) >= Self.spacing
            {
                marks.insert(Mark(position: position, index: 0), at: 0)
                after = 1
            }
            // The gap the row entered, from the mark before it to the next (or the end).
            let start = after == 0 ? 0 : marks[after - 1].index
            let end = after < marks.count ? marks[after].index : total + 1 - (old == nil ? 0 : 1)
            if end - start > Self.longestGap { return nil }
        }
        return ViewOutline(
            stamp: stamp,
            counts: SectionCounts(entries: entries, version: write.version),
            view: view,
            marks: marks,
            sectionIndex: index
        )
    }

    /// The index of each section by its id.
    private static func index(of entries: [SectionCounts.Entry], in view: View) -> [ExactText: Int] {
        var index: [ExactText: Int] = [:]
        for (place, entry) in entries.enumerated() { index[ExactText(id(of: entry, in: view))] = place }
        return index
    }
}
