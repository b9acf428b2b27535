import DataMediator
import DataMediatorTesting
import Synchronization
import Testing

/// What a page read from a cursor asks its provider for: one window while the cursor's
/// item is where it was (the item beyond the page is the first row read, so a page costs
/// one read), and the window on both sides of the position when it is not.
@Suite struct ForwardReadsTests {
    /// A provider that records which windows are asked for.
    final class RecordingProvider: DataProvider, SectionInfoProvider {
        let inner: ArrayDataProvider
        let reads = Mutex<[String]>([])

        init(_ items: [Item]) {
            inner = ArrayDataProvider(items: items, idField: "id", views: SampleList.views)
        }

        func window(of view: View, from start: Position?, inclusive: Bool, limit: Int) async throws -> Window {
            reads.withLock { $0.append(inclusive ? "from, inclusive" : "from") }
            return try await inner.window(of: view, from: start, inclusive: inclusive, limit: limit)
        }

        func window(of view: View, before start: Position?, inclusive: Bool, limit: Int) async throws -> Window {
            reads.withLock { $0.append(inclusive ? "before, inclusive" : "before") }
            return try await inner.window(of: view, before: start, inclusive: inclusive, limit: limit)
        }

        func window(
            of view: View,
            at start: Position,
            inclusive: Bool,
            before: Int,
            from: Int
        ) async throws -> AnchoredWindow {
            reads.withLock { $0.append("at") }
            return try await inner.window(of: view, at: start, inclusive: inclusive, before: before, from: from)
        }

        func locate(id: String, in view: View) async throws -> Location? { try await inner.locate(id: id, in: view) }

        func currentVersion() async throws -> Int64 { try await inner.currentVersion() }

        func sectionCounts(of view: View) async throws -> SectionCounts { try await inner.sectionCounts(of: view) }
    }

    static func adapter(_ provider: RecordingProvider) -> ListAdapter {
        ListAdapter(
            definition: SampleList.definition,
            provider: provider,
            signer: CursorSigner(secret: SampleList.secret)
        )
    }

    @Test(
        "a page from a next is one read while the cursor's item stays, two when it is gone",
        arguments: ["flat", "by_day"]
    )
    func aPageFromANextReadsOnceWhileItsItemStays(view: String) async throws {
        let items = SampleList.items()
        let provider = RecordingProvider(items)
        let adapter = Self.adapter(provider)
        let first = try await adapter.page(view: view, limit: "3", cursor: nil)
        let next = try #require(first.next)
        provider.reads.withLock { $0 = [] }
        let second = try await adapter.page(view: view, limit: "3", cursor: next)
        #expect(provider.reads.withLock { $0 } == ["from, inclusive"])
        #expect(second.prev != nil)

        // The same cursor over the items without the first page's last one.
        let gone = try #require(first.items.last?.id)
        let without = RecordingProvider(items.filter { $0["id"].idString != gone })
        let again = try await Self.adapter(without).page(view: view, limit: "3", cursor: next)
        #expect(without.reads.withLock { $0 } == ["from, inclusive", "at"])
        #expect(again.items.map(\.id) == second.items.map(\.id))
        #expect(again.prev != nil)

        // Back from the second page: one read while its first item stays, two without it.
        let prev = try #require(second.prev)
        provider.reads.withLock { $0 = [] }
        let back = try await adapter.page(view: view, limit: "3", cursor: prev)
        #expect(provider.reads.withLock { $0 } == ["before, inclusive"])
        #expect(back.items.map(\.id) == first.items.map(\.id))
        #expect(back.next != nil)
        let head = second.items[0].id
        let withoutHead = RecordingProvider(items.filter { $0["id"].idString != head })
        let backAgain = try await Self.adapter(withoutHead).page(view: view, limit: "3", cursor: prev)
        #expect(withoutHead.reads.withLock { $0 } == ["before, inclusive", "at"])
        #expect(backAgain.items.map(\.id) == first.items.map(\.id))
        #expect(backAgain.next != nil)

        // A located item's page reads both sides at once: its item is on the page.
        let located = try await adapter.locate(id: second.items[0].id, view: view)
        provider.reads.withLock { $0 = [] }
        let opened = try await adapter.page(view: view, limit: "3", cursor: located.cursor)
        #expect(provider.reads.withLock { $0 } == ["at"])
        #expect(opened.items.map(\.id) == second.items.map(\.id))
        #expect(opened.sections.first?.continues == second.sections.first?.continues)
    }
}
