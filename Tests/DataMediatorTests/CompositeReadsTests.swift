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

extension CompositeReadsTests {
    /// The `more` cell of a child that fixes its view's parameters names them (`params`):
    /// its cursor is bound to them, and without them the list's next page was 400 ("needs
    /// parameter"), which a client could not mend from the cell.
    @Test func theMoreCellOfASlicedChildNamesItsParameters() async throws {
        let slice = SliceRequest(parameters: ["kind": ["big"]])
        let view = try SampleList.definition.view(named: "by_day", slice: slice)
        let screen = ListAdapter.composite(
            name: "s",
            title: "S",
            children: [
                CompositeChild(name: "c", content: .list(CompositeTests.sample, view: view), cap: 2, more: true)
            ],
            signer: CompositeTests.signer
        )
        let page = try await screen.page(view: nil, limit: "10", cursor: nil)
        let more = try #require(page.items.first { $0.type == CompositeChild.moreType })
        guard case .object(let data) = more.data, case .string(let cursor)? = data["cursor"],
            case .object(let params)? = data["params"]
        else {
            Issue.record("\(more.data)")
            return
        }
        #expect(params == ["kind": .string("big")])
        let next = try await CompositeTests.sample.page(
            view: "by_day",
            limit: "10",
            cursor: cursor,
            slice: SliceRequest(parameters: params.mapValues { [$0.idString] })
        )
        let whole = try await CompositeTests.sample.page(view: "by_day", limit: "100", cursor: nil, slice: slice)
        // It continues the slice right after the two items the child shows.
        #expect(!next.items.isEmpty)
        #expect(zip(next.items, whole.items.dropFirst(2)).allSatisfy { $0.id == $1.id })
    }
}

extension CompositeReadsTests {
    /// The composite's description names the parameters each list child fixes (`params`,
    /// `{}` when none), so a client can follow the child's list with its cursors.
    @Test func theDescriptionNamesEachChildsParameters() async throws {
        let view = try SampleList.definition.view(named: "by_day", slice: SliceRequest(parameters: ["kind": ["big"]]))
        let screen = ListAdapter.composite(
            name: "s",
            title: "S",
            children: [
                CompositeChild(name: "big", content: .list(CompositeTests.sample, view: view), cap: 2, more: true),
                CompositeChild(
                    name: "all",
                    content: .list(CompositeTests.sample, view: try SampleList.definition.view(named: "by_day"))
                ),
            ],
            signer: CompositeTests.signer
        )
        guard case .array(let children)? = screen.definition.composition else {
            Issue.record("no children in \(String(describing: screen.definition.composition))")
            return
        }
        let params = children.map { child -> JSONValue? in
            guard case .object(let fields) = child else { return nil }
            return fields["params"]
        }
        #expect(params == [.object(["kind": .string("big")]), .object([:])])
    }
}
