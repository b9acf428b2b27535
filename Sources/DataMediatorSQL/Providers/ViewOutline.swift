import DataMediator

/// What is kept of a view (or one slice of it) at one stamp of its tables, so that placing
/// an item and counting sections cost about what a page costs: the sections and their
/// counts, where each section starts, and a mark every ``spacing`` items (the item's
/// position in view order and its index), so an item is placed by counting at most
/// ``longestGap`` rows from the mark before it.
///
/// An outline read from the rows has a mark every ``spacing`` items; the service's own
/// writes carry it over to the next stamp (``applying(_:stamp:)``), which moves the marks'
/// indexes and lets the gaps between them grow, up to ``longestGap``.
struct ViewOutline: Sendable {
    /// The items between two marks of an outline read from the rows.
    static let spacing = 128
    /// The most items between two marks (or before the first, or after the last) that an
    /// outline carried over by writes may have; one that would have more is read again.
    static let longestGap = 2 * spacing

    /// A kept item: its position in view order and its index in the view, which is the
    /// number of the view's items before that position (the item itself may be gone).
    struct Mark: Sendable {
        let position: Position
        var index: Int
    }

    /// The stamp of the list's tables in the snapshot this was read in (or that the last
    /// write it was carried over carried it to).
    let stamp: Int64
    /// The view (or slice) outlined.
    let view: View
    /// The sections and their counts.
    let counts: SectionCounts
    /// The index of each section by its id (byte for byte, as the store tells keys apart).
    let sectionIndex: [ExactText: Int]
    /// The index of the first item of each section, in section order.
    let sectionStart: [Int]
    /// Every ``spacing``-th item, from the first, in view order (further apart after writes).
    let marks: [Mark]

    init(stamp: Int64, counts: SectionCounts, view: View, marks: [Mark]) {
        var index: [ExactText: Int] = [:]
        for (place, entry) in counts.entries.enumerated() { index[ExactText(Self.id(of: entry, in: view))] = place }
        self.init(stamp: stamp, counts: counts, view: view, marks: marks, sectionIndex: index)
    }

    init(stamp: Int64, counts: SectionCounts, view: View, marks: [Mark], sectionIndex: [ExactText: Int]) {
        self.stamp = stamp
        self.view = view
        self.counts = counts
        self.marks = marks
        self.sectionIndex = sectionIndex
        var starts: [Int] = []
        starts.reserveCapacity(counts.entries.count)
        var start = 0
        for entry in counts.entries {
            starts.append(start)
            start += entry.count
        }
        self.sectionStart = starts
    }

    /// The id of a section of `view` by its counts entry.
    static func id(of entry: SectionCounts.Entry, in view: View) -> String {
        view.section.map { $0.id(for: entry.key) } ?? view.name
    }

    /// The index of the section with `id` and the index of its first item.
    func section(_ id: String) -> (index: Int, start: Int)? {
        sectionIndex[ExactText(id)].map { ($0, sectionStart[$0]) }
    }

    /// The number of items in the view.
    var total: Int { (sectionStart.last ?? 0) + (counts.entries.last?.count ?? 0) }

    /// The stretch of the view an item at `position` stands in: the last mark at or before
    /// it (nil when it comes before the first) and the number of items from that mark to
    /// the next one (or the view's end), which are all that is counted to place it.
    func stretch(of position: Position) -> (mark: Mark?, length: Int) {
        let after = firstMark(after: position)
        let start = after == 0 ? 0 : marks[after - 1].index
        let end = after < marks.count ? marks[after].index : total
        return (after == 0 ? nil : marks[after - 1], max(1, end - start))
    }

    /// The index in ``marks`` of the first mark after `position`.
    func firstMark(after position: Position) -> Int {
        var low = 0
        var high = marks.count
        while low < high {
            let middle = (low + high) / 2
            if view.compare(marks[middle].position, position) <= 0 { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
