import GRDB
import PostgresNIO
import Testing

@testable import DataMediator
@testable import DataMediatorPostgres
@testable import DataMediatorSQL
@testable import DataMediatorSQLite

/// A read of a view's or slice's changes seeks its own keys in the log's primary key
/// (list, view, version), not the list's changes in version order: a slice with no change
/// since a version read every change the list kept after it (probe 67: 110 ms for an
/// empty answer at 10,000 kept versions on SQLite), and a slice with a few read all the
/// others' between them.
@Suite struct ChangeReadPlanTests {
    static let keys = (own: "game#slice@binding.key", registered: "*game@binding.key")

    @Test func onSQLiteAViewsChangesAreReadByItsKeys() throws {
        let fixture = try SQLiteFixture()
        let arguments = ViewChangeReads.windowArguments(list: "sample", keys: Self.keys, since: 10, limit: 101)
        let plan = try fixture.store.queryPlan(ViewChangeReads.windowSQL(.sqlite), arguments)
        // Two reads of each key: the budget's measure and the window.
        let seeks = plan.filter { $0.contains("USING PRIMARY KEY (list=? AND view=? AND version>?") }
        #expect(seeks.count == 4, "\(plan)")
        #expect(!plan.contains { $0.contains("data_mediator_changes_age") }, "\(plan)")
    }

    @Test func onPostgreSQLAViewsChangesAreReadByItsKeys() async throws {
        let fixture = try await PostgresFixture(connections: 1)
        let arguments = ViewChangeReads.windowArguments(list: "sample", keys: Self.keys, since: 10, limit: 101)
        let plan = try await fixture.store.primary.withConnection { connection in
            // A log as a list with three views and a slice in one write of twelve holds it,
            // with the planner's statistics: where the slice is rare, a read of the list in
            // version order looks cheap.
            try await connection.query(
                """
                INSERT INTO data_mediator_changes (list, view, version, op, item_id)
                SELECT 'sample', v, g, 'insert', g::text
                FROM generate_series(1, 3000) AS g, unnest(ARRAY['a@b.c', 'd@e.f', 'g@h.i']) AS v
                UNION ALL
                SELECT 'sample', \(Self.keys.own), g, 'insert', g::text FROM generate_series(7, 3000, 12) AS g
                """,
                logger: fixture.store.logger
            )
            try await connection.query("ANALYZE data_mediator_changes", logger: fixture.store.logger)
            let sql = "EXPLAIN " + SQL.numbered(ViewChangeReads.windowSQL(.postgres))
            let rows = try await connection.query(
                PostgresQuery(sql: sql, values: arguments),
                logger: fixture.store.logger
            )
            var lines: [String] = []
            for try await line in rows.decode(String.self) { lines.append(line) }
            return lines
        }
        let seeks = plan.filter { $0.contains("Index Cond: ((list = ") && $0.contains("(view = '") }
        #expect(seeks.count == 4, "\(plan.joined(separator: "\n"))")
        #expect(!plan.contains { $0.contains("data_mediator_changes_age") }, "\(plan.joined(separator: "\n"))")
    }
}
