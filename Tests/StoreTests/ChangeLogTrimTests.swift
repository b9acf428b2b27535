import DataMediatorSQL
import GRDB
import PostgresNIO
import Testing

@testable import DataMediator
@testable import DataMediatorPostgres
@testable import DataMediatorSQL
@testable import DataMediatorSQLite

/// Once a list's history is full, every write forgets the list's oldest changes; that
/// trim reads the few changes it forgets on an index of (list, version), not every change
/// the list keeps (10,000 versions of every view: 9.7 ms a write on PostgreSQL at 60,000
/// changes, before the index).
@Suite struct ChangeLogTrimTests {
    @Test func onSQLiteTheTrimSeeksItsRangeOnAnIndex() throws {
        let fixture = try SQLiteFixture()
        let plan = try fixture.store.database.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + SQLChangeLog.trimSQL, arguments: ["sample", 10])
                .map { $0["detail"] as String? ?? "" }
        }
        // A seek by list alone (the primary key's first column) would read all its changes.
        #expect(plan.contains { $0.contains("version<") }, "\(plan)")
    }

    @Test func onPostgreSQLTheTrimSeeksItsRangeOnAnIndex() async throws {
        let fixture = try await PostgresFixture(connections: 1)
        let plan = try await fixture.store.primary.withConnection { connection in
            // The table is small here: without the planner's sequential scans, the plan
            // shows the index it would use when the table is large.
            try await connection.query("SET enable_seqscan = off", logger: fixture.store.logger)
            // As a write's statement trims: below a version its own raise answers (a
            // scalar subquery there too).
            let bound = "(SELECT version FROM \(ServiceTables.store)) - ?"
            let sql = "EXPLAIN " + SQL.numbered(SQLChangeLog.trimSQL(through: bound))
            let rows = try await connection.query(
                PostgresQuery(sql: sql, values: [.string("sample"), .integer(10)]),
                logger: fixture.store.logger
            )
            var lines: [String] = []
            for try await line in rows.decode(String.self) { lines.append(line) }
            try await connection.query("RESET enable_seqscan", logger: fixture.store.logger)
            return lines
        }
        // The primary key (list, view, version) would serve it too, by reading every change
        // of the list and testing its version.
        #expect(plan.contains { $0.contains("data_mediator_changes_age") }, "\(plan)")
    }
}

extension ChangeLogTrimTests {
    /// A full history forgets the changes and the logged stamp steps below its floor at
    /// every write (on PostgreSQL in the statement that logs the write), and keeps the rest.
    @Test("a full history keeps only the changes above its floor", arguments: [WritableKind.sqlite, .postgres])
    func aFullHistoryKeepsOnlyTheChangesAboveItsFloor(kind: WritableKind) async throws {
        let subject = try await WritableSubject(kind, history: 5)
        guard let provider = subject.adapter.provider as? any SQLDataProvider else {
            Issue.record("not a SQL provider")
            return
        }
        let list = subject.adapter.definition.name
        var versions: [Int64] = []
        for index in 0..<12 {
            let written = try await subject.adapter.create(
                body: .object(["id": .string("t\(index)"), "data": .object([:])])
            )
            versions.append(written.version)
            let kept = try await provider.reader.transactions.read { session in
                try await session.rows(
                    "SELECT MIN(version), MAX(version) FROM \(ServiceTables.changes) WHERE list = ?",
                    [JSONValue.string(list)]
                )
            }
            guard let row = kept.first, row.count == 2 else {
                Issue.record("no row")
                return
            }
            #expect(row[1].integerValue == written.version, "write \(index)")
            // The floor is the version 5 writes back: changes at or below it are gone.
            #expect((row[0].integerValue ?? 0) > written.version - 5, "write \(index): \(row)")
        }
        #expect(versions.count == 12)
        let changes = try await subject.adapter.changes(view: nil, since: String(versions[11] - 5), limit: nil)
        #expect(changes.entries.count == 5)
    }
}
