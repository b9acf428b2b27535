import DataMediator
import DataMediatorTesting
import Testing

@testable import DataMediatorSQL

extension KeptCountsTests {
    /// The `by_day` outline of a 300-item sample store being read at the stamp now, held
    /// until `open` finishes (then read from the rows).
    struct HeldOutline {
        let items: [Item]
        let subject: Subject
        let view: View
        let open: AsyncStream<Void>.Continuation
        let held: Task<ViewOutline, any Error>
        var provider: any SQLDataProvider { subject.provider }

        init(_ kind: SQLKind) async throws {
            items = SampleList.items(count: 300)
            subject = try await Subject(kind, items: items)
            let reader = subject.provider.reader
            let view = try SampleList.definition.view(named: "by_day")
            self.view = view
            let stamp = try #require(try await reader.currentStamp())
            let (gate, open) = AsyncStream<Void>.makeStream()
            self.open = open
            held = Task {
                try await reader.outlines.value(view.binding, stamp: stamp) {
                    for await _ in gate {}
                    return try await reader.readOutline(of: view)
                }
            }
            try await KeptCountsTests.until { reader.outlines.isComputing(view.binding) }
        }
    }
}
