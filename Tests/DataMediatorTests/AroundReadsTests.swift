import DataMediator
import DataMediatorTesting
import Synchronization
import Testing

/// What an `around` page asks its provider for: as many rows as a forward page reads when
/// enough items precede the item, and near the view's start the rows after those as a
/// forward page reads them (the longer side again when a write came between).
@Suite struct AroundReadsTests {
    /// A provider that records the sides each around read asks for, and the forward reads.
    final class RecordingProvider: DataProvider, SectionInfoProvider {
        let inner: ArrayDataProvider
        let asked = Mutex<[(before: Int, from: Int)]>([])
        let forward = Mutex<[Int]>([])
        /// Whether a forward read answers as after a write (a version later).
        let movedOn: Bool

        init(_ inner: ArrayDataProvider, movedOn: Bool = false) {
            self.inner = inner
            self.movedOn = movedOn
        }

        func window(of view: View, from start: Position?, inclusive: Bool, limit: Int) async throws -> Window {
            forward.withLock { $0.append(limit) }
            let window = try await inner.window(of: view, from: start, inclusive: inclusive, limit: limit)
            return movedOn ? Window(items: window.items, version: window.version + 1) : window
        }

        func window(of view: View, before start: Position?, inclusive: Bool, limit: Int) async throws -> Window {
            try await inner.window(of: view, before: start, inclusive: inclusive, limit: limit)
        }

        func window(of view: View, around id: String, before: Int, from: Int) async throws -> AnchoredWindow? {
            asked.withLock { $0.append((before, from)) }
            return try await inner.window(of: view, around: id, before: before, from: from)
        }

        func locate(id: String, in view: View) async throws -> Location? { try await inner.locate(id: id, in: view) }

        func currentVersion() async throws -> Int64 { try await inner.currentVersion() }

        func sectionCounts(of view: View) async throws -> SectionCounts { try await inner.sectionCounts(of: view) }
    }

    @Test(
        "an around page reads a forward page's rows, and more only near the start",
        arguments: [1, 2, 7, 10],
        [false, true]
    )
    func aroundReadsWhatThePageNeeds(limit: Int, movedOn: Bool) async throws {
        let provider = RecordingProvider(
            ArrayDataProvider(items: SampleList.items(), idField: "id", views: SampleList.views),
            movedOn: movedOn
        )
        let adapter = ListAdapter(
            definition: SampleList.definition,
            provider: provider,
            signer: CursorSigner(secret: SampleList.secret)
        )
        let view = try SampleList.definition.view(named: "flat")
        let order = SampleList.expectedOrder(SampleList.items(), view: view).map { $0["id"].idString }
        let wanted = (limit - 1) / 2
        for index in [0, wanted / 2, wanted, order.count / 2, order.count - 2, order.count - 1] {
            provider.asked.withLock { $0 = [] }
            provider.forward.withLock { $0 = [] }
            let page = try await adapter.page(view: "flat", limit: String(limit), cursor: nil, around: order[index])
            let start = index - min(index, wanted)
            let expected = Array(order[start..<min(order.count, start + limit)])
            #expect(page.items.map(\.id) == expected, "limit \(limit), item \(index)")
            #expect((page.next != nil) == (start + limit < order.count), "limit \(limit), item \(index)")
            let asked = provider.asked.withLock { $0 }
            // One more row than the page shows on each side, to tell whether more lie beyond.
            #expect(
                asked.first.map { [$0.before, $0.from] } == [wanted + 1, limit - wanted + 1],
                "limit \(limit), item \(index)"
            )
            // The rows after those read only when fewer precede than the page could show
            // and the items after it may fill the rest: as many as the longer side lacks.
            let more = index < wanted && order.count - index >= limit - wanted + 1
            #expect(provider.forward.withLock { $0 } == (more ? [wanted] : []), "limit \(limit), item \(index)")
            // Read again with the longer side when a write came between the two.
            #expect(asked.count == (more && movedOn ? 2 : 1), "limit \(limit), item \(index)")
            if more && movedOn {
                #expect(
                    asked.last.map { [$0.before, $0.from] } == [wanted + 1, limit + 1],
                    "limit \(limit), item \(index)"
                )
            }
        }
    }
}
