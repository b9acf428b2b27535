import DataMediator
import DataMediatorTesting
import Synchronization
import Testing

/// What a composite's page costs its children: one window read per child shown, and no
/// read of its own for a `more` cell or the page's version.
@Suite struct CompositeReadsTests {
    static func screen(_ provider: CompositeTests.CountedProvider, cap: Int) throws -> ListAdapter {
        ListAdapter.composite(
            name: "screen",
            title: "Screen",
            children: [
                CompositeTests.welcome(1),
                CompositeChild(
                    name: "top",
                    content: .list(
                        ListAdapter(
                            definition: SampleList.definition,
                            provider: provider,
                            signer: CompositeTests.signer
                        ),
                        view: try CompositeTests.view("flat")
                    ),
                    cap: cap,
                    more: true
                ),
            ],
            signer: CompositeTests.signer
        )
    }

    @Test func aPageReadsACappedChildOnceAndTakesItsVersionFromThatRead() async throws {
        let count = SampleList.items().count
        try #require(count + 2 < 100)
        // More items than the cap (a more cell follows), and exactly the cap (none does).
        for (cap, hasMore) in [(3, true), (count, false)] {
            let provider = CompositeTests.CountedProvider()
            let page = try await Self.screen(provider, cap: cap).page(view: nil, limit: "100", cursor: nil)
            let types = page.items.map(\.type)
            #expect(types.filter { $0 == CompositeChild.moreType }.count == (hasMore ? 1 : 0))
            #expect(types.count == 1 + cap + (hasMore ? 1 : 0))
            #expect(provider.windows.withLock { $0 } == 1)
            #expect(provider.versions.withLock { $0 } == 0)
        }
    }

    @Test func aPageThatStartsAtTheCapStillFindsTheMoreCell() async throws {
        let provider = CompositeTests.CountedProvider()
        let screen = try Self.screen(provider, cap: 3)
        // Page 1 ends at the child's cap; page 2 begins with the more cell.
        let first = try await screen.page(view: nil, limit: "4", cursor: nil)
        let second = try await screen.page(view: nil, limit: "4", cursor: first.next)
        #expect(first.items.map(\.type).contains(CompositeChild.moreType) == false)
        #expect(second.items.map(\.type) == [CompositeChild.moreType])
        #expect(second.next == nil)
    }
}
