import DataMediator

/// What is kept of a view (or one slice of it) at one stamp of its tables, so that placing
/// an item and counting sections cost about what a page costs: the sections and their
/// counts, where each section starts, and a mark every ``spacing`` items (the item's
/// position in view order and its index), so an item is placed by counting at most
/// `spacing` rows from the mark before it.
struct ViewOutline: Sendable {
    /// The items between two marks.
    static let spacing = 256

    /// A kept item: its position in view order and its index in the view.
    struct Mark: Sendable {
        let position: Position
        let index: Int
    }

    /// The stamp of the list's tables in the snapshot this was read in.
    let stamp: Int64
    /// The sections and their counts.
    let counts: SectionCounts
    /// By section id, the section's index and the index of its first item.
    let sectionStarts: [String: (index: Int, start: Int)]
    /// Every ``spacing``-th item, from the first, in view order.
    let marks: [Mark]

    init(stamp: Int64, counts: SectionCounts, view: View, marks: [Mark]) {
        self.stamp = stamp
        self.counts = counts
        self.marks = marks
        var starts: [String: (index: Int, start: Int)] = [:]
        var start = 0
        for (index, entry) in counts.entries.enumerated() {
            let id = view.section.map { $0.id(for: entry.key) } ?? view.name
            starts[id] = (index, start)
            start += entry.count
        }
        self.sectionStarts = starts
    }

    /// The last mark at or before `position` in `view`'s order; nil when it comes first.
    func mark(atOrBefore position: Position, in view: View) -> Mark? {
        var low = 0
        var high = marks.count
        while low < high {
            let middle = (low + high) / 2
            if view.compare(marks[middle].position, position) <= 0 { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? nil : marks[low - 1]
    }
}
