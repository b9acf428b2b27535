import DataMediator
import DataMediatorTesting
import Testing

/// Composites read both ways: a backward page crosses from one child into the one before,
/// a capped child's `more` cell stays where a forward walk shows it, and a walk opened at
/// any item assembles the forward walk.
@Suite struct CompositeBothWaysTests {
    @Test("walks opened at every item go both ways across children", arguments: [1, 2, 3, 7, 50])
    func walksBothWaysAcrossChildren(limit: Int) async throws {
        let screen = try CompositeTests.screen()
        let forward = try await SampleList.walk(screen, view: nil, limit: limit)
        #expect(forward.violations == [])
        // Every item: the static sections, the capped child and its more cell, each child's edges.
        for cell in forward.items {
            let check = try await SampleList.walkBothWays(
                screen,
                view: nil,
                limit: limit,
                around: cell.id,
                forward: forward
            )
            #expect(check.violations == [], "limit \(limit), around \(cell.id)")
        }
    }

    @Test func aBackwardPageFromTheEndCrossesEveryChildToTheTop() async throws {
        let screen = try CompositeTests.screen()
        let forward = try await SampleList.walk(screen, view: nil, limit: 100)
        let last = try #require(forward.items.last)
        let around = try await screen.page(view: nil, limit: "1", cursor: nil, around: last.id)
        var items = around.items.map(\.id)
        var prev = around.prev
        while let cursor = prev {
            let page = try await screen.page(view: nil, limit: "9", cursor: cursor)
            items = page.items.map(\.id) + items
            prev = page.prev
        }
        #expect(items == forward.items.map(\.id))
        // The capped child's more cell is read backward where the forward walk shows it.
        #expect(items.contains("top:more"))
    }
}
