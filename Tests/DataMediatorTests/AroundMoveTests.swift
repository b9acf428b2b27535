import DataMediator
import DataMediatorTesting
import Synchronization
import Testing

/// An `around` page from a provider without a window of its own (a composite's): the item
/// is located, then the items before and from its place are read, each at its own moment.
/// A write that moved the item between those reads left it out of the page, or not where
/// the page holds its item (review 86 #2); the reads are made again until they agree.
@Suite struct AroundMoveTests {
    /// A provider over a store whose first read before a place runs `move` first.
    final class MovingProvider: DataProvider, SectionInfoProvider {
        let inner: InMemoryDataProvider
        let move: Mutex<(@Sendable () async throws -> Void)?>

        init(_ inner: InMemoryDataProvider, move: @escaping @Sendable () async throws -> Void) {
            self.inner = inner
            self.move = Mutex(move)
        }

        func window(of view: View, from start: Position?, inclusive: Bool, limit: Int) async throws -> Window {
            try await inner.window(of: view, from: start, inclusive: inclusive, limit: limit)
        }

        func window(of view: View, before start: Position?, inclusive: Bool, limit: Int) async throws -> Window {
            if let move = self.move.withLock({ move in
                defer { move = nil }
                return move
            }) {
                try await move()
            }
            return try await inner.window(of: view, before: start, inclusive: inclusive, limit: limit)
        }

        func locate(id: String, in view: View) async throws -> Location? { try await inner.locate(id: id, in: view) }

        func currentVersion() async throws -> Int64 { try await inner.currentVersion() }

        func sectionCounts(of view: View) async throws -> SectionCounts { try await inner.sectionCounts(of: view) }
    }

    @Test func anAroundPageHoldsItsItemWhenAWriteMovesItBetweenTheReads() async throws {
        let (definition, store) = CompositeTests.notesStore()
        let writer = ListAdapter(
            definition: definition,
            provider: store,
            signer: CursorSigner(secret: SampleList.secret),
            writer: store
        )
        for (id, title) in zip(["a", "b", "c", "d", "x", "e", "f", "g"], ["b", "d", "f", "h", "k", "l", "n", "p"]) {
            _ = try await writer.create(body: .object(["id": .string(id), "data": .object(["title": .string(title)])]))
        }
        // Located at "k", then moved to "e" (between b and c) before the items before are read.
        let provider = MovingProvider(store) {
            _ = try await writer.patch(id: "x", body: .object(["data": .object(["title": .string("e")])]))
        }
        let adapter = ListAdapter(
            definition: definition,
            provider: provider,
            signer: CursorSigner(secret: SampleList.secret)
        )
        let page = try await adapter.page(view: nil, limit: "5", cursor: nil, around: "x")
        #expect(page.items.map(\.id) == ["a", "b", "x", "c", "d"])
    }
}
