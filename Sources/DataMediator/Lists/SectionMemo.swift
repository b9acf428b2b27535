import Synchronization

/// The sections last shown per view (or slice) binding, with the counts they were built
/// from. A provider that keeps a view's counts hands back the same array until they
/// change, so a view of thousands of sections does not build every id and title again on
/// each request; other counts are compared first, which costs less than building.
final class SectionMemo: Sendable {
    private typealias Entry = (counts: [SectionCounts.Entry], sections: [SectionInfo.Section])
    private let memo = Mutex<[String: Entry]>([:])
    /// The most bindings remembered; past it, the slices' (a binding with `#`: as many as
    /// clients make up) are forgotten, and only when there are none the views' own: one
    /// client asking for many slices does not make every view build its sections again.
    static let capacity = 64

    /// The sections of `counts` for `binding`: remembered, or made by `build` and kept.
    func sections(
        for binding: String,
        counts: [SectionCounts.Entry],
        build: () -> [SectionInfo.Section]
    ) -> [SectionInfo.Section] {
        if let kept = memo.withLock({ $0[binding] }), kept.counts == counts { return kept.sections }
        let sections = build()
        memo.withLock { memo in
            if memo.count >= Self.capacity, memo[binding] == nil {
                memo = memo.filter { !$0.key.contains("#") }
                if memo.count >= Self.capacity { memo.removeAll(keepingCapacity: true) }
            }
            memo[binding] = (counts, sections)
        }
        return sections
    }
}
