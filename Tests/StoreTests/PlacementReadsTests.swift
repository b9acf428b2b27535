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
        let (readers, holds) = try await readers(kind, of: [SampleList.definition])
        return (readers[0], holds)
    }

    /// The readers of `lists` over the sample table on each SQL store, over the sample items.
    private static func readers(
        _ kind: WritableKind,
        of lists: [ListDefinition]
    ) async throws -> ([SQLListReader], holds: Any) {
        switch kind {
        case .postgres:
            let fixture = try await PostgresFixture()
            try await fixture.store.primary.query(
                PostgresQuery(unsafeSQL: SQLiteFixture.createTable(.postgres, notNull: ["created"]))
            )
            var readers: [SQLListReader] = []
            for list in lists {
                readers.append(try await fixture.store.provider(for: list, source: SQLiteFixture.source).reader)
            }
            try await fixture.insert(SampleList.items())
            return (readers, fixture)
        default:
            let fixture = try SQLiteFixture()
            let readers = try lists.map { try fixture.store.provider(for: $0, source: SQLiteFixture.source).reader }
            return (readers, fixture)
        }
    }

    /// The reads of several lists over one table asked together (a write places its item in
    /// every list's views) answer what each list's reads alone answer, in one statement for
    /// the lists that read the same columns (in another order, here) and one more for a list
    /// that reads fewer.
    @Test(arguments: [WritableKind.sqlite, .postgres])
    func readsOfSeveralListsTogetherAnswerWhatEachListAloneAnswers(kind: WritableKind) async throws {
        let views = SampleList.views.filter(\.parameters.isEmpty)
        let lists = [
            ListDefinition(name: "forward", title: "Forward", idField: "id", views: views),
            ListDefinition(name: "reversed", title: "Reversed", idField: "id", views: views.reversed()),
            ListDefinition(name: "one", title: "One", idField: "id", views: [views[0]]),
        ]
        let (readers, holds) = try await Self.readers(kind, of: lists)
        defer { withExtendedLifetime(holds) {} }
        #expect(readers[0].columns != readers[1].columns && Set(readers[0].columns) == Set(readers[1].columns))
        #expect(Set(readers[2].columns) != Set(readers[0].columns))
        var compared = 0
        for (index, item) in SampleList.expectedOrder(SampleList.items(), view: views[0]).enumerated() {
            // Each list reads the items before the item in each of its views.
            let asked = zip(readers, lists).map { reader, list in
                (
                    reader: reader,
                    reads: list.views.map { view in
                        ChangeRecorder.PlacementRead.before(view: view, position: view.position(of: item), limit: 3)
                    }
                )
            }
            try await readers[0].transactions.read { session in
                let counting = CountingSession(session)
                let together = try await SQLListReader.answers(to: asked, counting)
                #expect(counting.statements.count == 2, "#\(index): \(counting.statements.count) statements")
                let pair = CountingSession(session)
                _ = try await SQLListReader.answers(to: Array(asked.prefix(2)), pair)
                #expect(pair.statements.count == 1, "#\(index): the pair in \(pair.statements.count) statements")
                for ((reader, reads), answers) in zip(asked, together) {
                    let alone = try await reader.answers(to: reads, session)
                    #expect(answers.count == reads.count)
                    for (answer, expected) in zip(answers, alone) {
                        guard case .items(let items) = answer, case .items(let expectedItems) = expected else {
                            Issue.record("#\(index): \(answer) against \(expected)")
                            continue
                        }
                        #expect(items == expectedItems, "#\(index) in \(reader.listName)")
                        #expect(items.allSatisfy { $0.layout.names == reader.columns })
                    }
                }
            }
            compared += 1
        }
        #expect(compared > 0)
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
