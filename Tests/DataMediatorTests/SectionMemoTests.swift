import Testing

@testable import DataMediator

/// The sections last shown per binding (``SectionMemo``): past its capacity the slices'
/// are forgotten first, so one client asking for many slices does not make every view
/// build its sections again (review 80).
@Suite struct SectionMemoTests {
    @Test func manySlicesForgetTheSlicesNotTheViews() {
        let memo = SectionMemo()
        let counts = [SectionCounts.Entry(key: .string("a"), count: 3)]
        var built: [String] = []
        func show(_ binding: String) {
            _ = memo.sections(for: binding, counts: counts) {
                built.append(binding)
                return [SectionInfo.Section(id: "a", title: nil, count: 3)]
            }
        }
        show("all")
        show("by_player")
        for game in 0..<(SectionMemo.capacity * 3) { show("game#\(game)") }
        built = []
        show("all")
        show("by_player")
        show("game#\(SectionMemo.capacity * 3 - 1)")
        #expect(built.isEmpty, "built again: \(built)")
        // Views alone past the capacity: the memo starts again.
        for view in 0..<SectionMemo.capacity { show("view\(view)") }
        built = []
        show("all")
        #expect(built == ["all"])
    }
}
