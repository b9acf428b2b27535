import DataMediatorTesting
import Testing

@testable import DataMediator
@testable import DataMediatorSQL

/// A write's raise of the version and the logs of every list over its table
/// (`SQLChangeLog.record`): one statement on PostgreSQL (each is a round trip, and a wait
/// for a core under load), separate ones on SQLite; either way each list's changes, its
/// stamp's step and its floor, trimmed once its history is full.
@Suite struct ChangeLogRecordTests {
    @Test(arguments: [WritableKind.sqlite, .postgres])
    func theRaiseAndEveryListsLogAreWrittenTogether(kind: WritableKind) async throws {
        let subject = try await WritableSubject(kind)
        guard let provider = subject.adapter.provider as? any SQLDataProvider else {
            Issue.record("not a SQL provider")
            return
        }
        let transactions = provider.reader.transactions
        let table = "notes"
        let logs = ["first", "second"].map { name in
            SQLChangeLog(
                transactions: transactions,
                list: ListDefinition(name: name, title: name, idField: "id", views: [], history: 2),
                table: table,
                columns: ["id", "title"]
            )
        }
        try await transactions.write { session in
            for log in ["first", "second"] {
                try await SQLChangeLog.restart(list: log, at: try await StoreVersion.current(session), session)
            }
        }
        let placement = Placement(section: "s", sectionAfter: nil, after: "a")
        var versions: [Int64] = []
        for index in 0..<4 {
            let item = Item(layout: ItemLayout(["id", "title"]), values: [.string("n\(index)"), .string("t")])
            let entries = logs.map { log in
                log.entry(
                    id: "n\(index)",
                    item: item,
                    old: nil,
                    changes: ["all": ViewChange(operation: .insert, placement: placement)],
                    stampBefore: 1_000 + Int64(index)
                )
            }
            let (version, statements) = try await transactions.write { session in
                let counting = CountingSession(session)
                let (version, _) = try await SQLChangeLog.record(
                    entries,
                    bumping: table,
                    readingStamp: "SELECT \(1_001 + index)",
                    counting
                )
                return (version, counting.statements.count)
            }
            versions.append(version)
            // SQLite: the raise, then per list the changes, the step and the floor's raise
            // (and its two trims once the floor rose).
            #expect(kind == .postgres ? statements == 1 : statements >= 7, "write \(index): \(statements)")
        }
        let rows = try await transactions.read { session in
            try await session.rows(
                """
                SELECT c.list, c.version, s.stamp_before, s.stamp_after, h.floor
                FROM \(ServiceTables.changes) AS c
                JOIN \(StampSteps.table) AS s ON s.list = c.list AND s.version = c.version
                JOIN \(ServiceTables.history) AS h ON h.list = c.list
                WHERE c.list IN ('first', 'second') ORDER BY c.list, c.version
                """,
                []
            )
        }
        // Each list keeps the last two versions, their steps, and its floor below them.
        var expected: [[JSONValue]] = []
        for list in ["first", "second"] {
            for index in 2..<4 {
                expected.append([
                    .string(list), .integer(versions[index]), .integer(1_000 + Int64(index)),
                    .integer(1_001 + Int64(index)), .integer(versions[3] - 2),
                ])
            }
        }
        #expect(rows == expected)
    }
}

/// A session that notes each statement it is asked to run, then runs it on `session`.
final class CountingSession: SQLSession, @unchecked Sendable {
    let session: any SQLSession
    /// The statements run so far, in order (a test's own, on one task).
    var statements: [String] = []

    init(_ session: any SQLSession) { self.session = session }

    var dialect: SQLDialect { session.dialect }

    func rows(_ sql: String, _ arguments: [JSONValue]) async throws -> [[JSONValue]] {
        statements.append(sql)
        return try await session.rows(sql, arguments)
    }

    func execute(_ sql: String, _ arguments: [JSONValue]) async throws {
        statements.append(sql)
        try await session.execute(sql, arguments)
    }
}
