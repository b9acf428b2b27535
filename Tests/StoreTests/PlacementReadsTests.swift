import DataMediator
import DataMediatorSQL
import DataMediatorTesting
import PostgresNIO
import Testing

@testable import DataMediatorPostgres
@testable import DataMediatorSQLite

/// The reads that place a written item, asked together (`SQLListReader.answers(to:)`: one
/// statement for all of them, each range read up to its read's limit, a limit PostgreSQL
/// has written in and rounded up), answer what each read one range after another answers.
@Suite struct PlacementReadsTests {
    /// The sample list's reader on each SQL store, over the sample items.
    private static func reader(_ kind: WritableKind) async throws -> (SQLListReader, holds: Any) {
        switch kind {
        case .postgres:
            let fixture = try await PostgresFixture()
            try await fixture.store.primary.query(
                PostgresQuery(unsafeSQL: SQLiteFixture.createTable(.postgres, notNull: ["created"]))
            )
            let provider = try await fixture.store.provider(for: SampleList.definition, source: SQLiteFixture.source)
            try await fixture.insert(SampleList.items())
            return (provider.reader, fixture)
        default:
            let fixture = try SQLiteFixture()
            let provider = try fixture.store.provider(for: SampleList.definition, source: SQLiteFixture.source)
            return (provider.reader, fixture)
        }
    }

    @Test(arguments: [WritableKind.sqlite, .postgres])
    func readsAskedTogetherAnswerWhatEachReadAloneAnswers(kind: WritableKind) async throws {
        let (reader, holds) = try await Self.reader(kind)
        defer { withExtendedLifetime(holds) {} }
        var compared = 0
        for view in SampleList.views where view.parameters.isEmpty {
            let ordered = SampleList.expectedOrder(SampleList.items(), view: view)
            for (index, item) in ordered.enumerated() {
                let position = view.position(of: item)
                // Limits that are and are not powers of two, one past the items before.
                let limits = [1, 3, 5, index + 1]
                let reads = limits.map {
                    ChangeRecorder.PlacementRead.before(view: view, position: position, limit: $0)
                }
                try await reader.transactions.read { session in
                    let together = try await reader.answers(to: reads, session)
                    for (limit, answer) in zip(limits, together) {
                        let alone = try await reader.items(before: position, in: view, limit: limit, session)
                        #expect(alone.count == min(limit, index), "\(view.name) #\(index) limit \(limit)")
                        guard case .items(let items) = answer else {
                            Issue.record("\(view.name) #\(index): \(answer)")
                            continue
                        }
                        #expect(items == alone, "\(view.name) #\(index) limit \(limit)")
                        // One read alone takes the one-read path.
                        let single = try await reader.answers(
                            to: [.before(view: view, position: position, limit: limit)],
                            session
                        )
                        guard case .items(let singleItems)? = single.first, single.count == 1 else {
                            Issue.record("\(view.name) #\(index): \(single)")
                            continue
                        }
                        #expect(singleItems == alone, "\(view.name) #\(index) limit \(limit), alone")
                    }
                }
                compared += 1
            }
        }
        #expect(compared > 0)
    }
}
