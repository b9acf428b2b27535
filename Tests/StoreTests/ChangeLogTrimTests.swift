import DataMediator
import DataMediatorSQL
import GRDB
import PostgresNIO
import Testing

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
            let sql = "EXPLAIN " + SQL.numbered(SQLChangeLog.trimSQL)
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
