import DataMediator
import DataMediatorTesting
import Testing

/// A composite's cursor holds its child's position: long keys in there are carried
/// abridged too, and made whole by the child (probe 48: a child key of 20,000 bytes that
/// another program wrote stopped a composite's walk, `431`, with a `Link` of 54 KB).
@Suite struct CompositeLongKeyTests {
    /// The sample items with groups of 20,000 bytes, and of 801 bytes that share their
    /// first 800.
    static func items() -> [Item] {
        SampleList.items().enumerated().map { index, item in
            var item = item
            let stem = String(repeating: "\u{E9}", count: 400)
            item["group"] = .string(index % 7 == 0 ? String(repeating: "z", count: 20_000) : stem + String(index % 3))
            return item
        }
    }

    static let signer = CursorSigner(secret: SampleList.secret)

    /// A screen of a static section, a capped child and a whole child by the long groups,
    /// and a nested composite of them.
    static func screen(items: [Item]) throws -> (ListAdapter, expected: [String]) {
        let sample = ListAdapter(
            definition: SampleList.definition,
            provider: ArrayDataProvider(items: items, idField: "id", views: SampleList.views),
            signer: signer
        )
        let byGroup = try sample.definition.view(named: "by_group")
        let nested = ListAdapter.composite(
            name: "inner",
            title: "Inner",
            children: [CompositeChild(name: "groups", content: .list(sample, view: byGroup), cap: 4)],
            signer: signer
        )
        let screen = ListAdapter.composite(
            name: "screen",
            title: "Screen",
            children: [
                CompositeTests.welcome(2),
                CompositeChild(name: "top", content: .list(sample, view: byGroup), cap: 5, more: true),
                CompositeChild(name: "all", content: .list(sample, view: byGroup)),
                CompositeChild(name: "inner", content: .list(nested, view: try nested.definition.view(named: nil))),
            ],
            signer: signer
        )
        let order = SampleList.expectedOrder(items, view: byGroup).map { $0["id"].idString }
        let expected =
            ["welcome/w0", "welcome/w1"] + order.prefix(5).map { "top/" + $0 } + ["top:more"]
            + order.map { "all/" + $0 } + order.prefix(4).map { "inner/groups/" + $0 }
        return (screen, expected)
    }

    @Test("a composite over long keys is walked both ways with short cursors", arguments: [1, 2, 3, 7])
    func aCompositeOverLongKeysIsWalked(limit: Int) async throws {
        let (screen, expected) = try Self.screen(items: Self.items())
        var forward = try await SampleList.walk(screen, view: nil, limit: limit)
        forward.expectOrder(expected)
        #expect(forward.violations == [], "limit \(limit)")
        var cursor: String?
        repeat {
            let page = try await screen.page(view: nil, limit: String(limit), cursor: cursor)
            for token in [page.next, page.prev].compactMap(\.self) {
                #expect(token.utf8.count < 1_000, "limit \(limit): \(token.utf8.count)")
            }
            cursor = page.next
        } while cursor != nil
        for id in [expected[3], expected[9], expected[expected.count - 2]] {
            let check = try await SampleList.walkBothWays(screen, view: nil, limit: limit, around: id, forward: forward)
            #expect(check.violations == [], "limit \(limit), around \(id)")
        }
    }
}
