import DataMediator
import DataMediatorTesting
import Testing

/// Reading both ways under writes, on every writable store: a walk opened at an item that
/// goes back to the top and on to the end while items are inserted and deleted around it
/// serves each item once and skips none that stayed.
@Suite struct BothWaysUnderWritesTests {
    @Test(
        "a walk both ways under concurrent inserts and deletes serves every item once and skips none that stayed",
        arguments: WritableKind.allCases,
        ["by_day", "by_group", "flat"]
    )
    func bothWaysUnderConcurrentWrites(kind: WritableKind, view: String) async throws {
        let subject = try await WritableSubject(kind)
        defer { withExtendedLifetime(subject) {} }
        let adapter = subject.adapter
        var mix = WriteMix(seed: 41)
        let before = try await ChangeReplayTests.seed(adapter, &mix)
        let walkedBefore = try await ChangeReplayTests.replica(of: adapter, view: view, limit: 50)
        let order = walkedBefore.sections.flatMap(\.cells).map(\.id)
        // Opened in the middle, the walk reads half the view backward and half forward.
        let anchor = order[order.count / 2]
        let doomed = Set(before.filter { $0 != anchor }.shuffled(using: &mix.random).prefix(40))
        let writer = ChangeReplayTests.storm(adapter, mix, deleting: doomed)
        let first = try await adapter.page(view: view, limit: "3", cursor: nil, around: anchor)
        var served = first.items.map(\.id)
        var prev = first.prev
        while let cursor = prev {
            let page = try await adapter.page(view: view, limit: "3", cursor: cursor)
            served = page.items.map(\.id) + served
            prev = page.prev
            await Task.yield()
        }
        var next = first.next
        while let cursor = next {
            let page = try await adapter.page(view: view, limit: "3", cursor: cursor)
            served += page.items.map(\.id)
            next = page.next
            await Task.yield()
        }
        let deleted = Set(try await writer.value)
        #expect(deleted.count == 40)
        #expect(Set(served).count == served.count, "an item was served twice")
        let expected = Set(order).subtracting(deleted)
        #expect(expected.count > 50)
        let missing = expected.subtracting(served)
        #expect(missing.isEmpty, "skipped: \(missing.sorted())")
        // What was served is in view order: the stayed items keep their order from before.
        let stayed = served.filter(expected.contains)
        #expect(stayed == order.filter(expected.contains))
    }
}
