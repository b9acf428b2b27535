import DataMediator
import DataMediatorPostgres
import DataMediatorSQL
import DataMediatorSQLite
import DataMediatorTesting
import GRDB
import PostgresNIO
import Testing

/// A list's table and its `versions` must be tables of the store: a missing one, a view
/// and the database's own catalog are named before anything is made for the list (a trigger
/// or a table made over them failed with SQL nobody asked for).
@Suite struct VersionTablesTests {
    static let list = ListDefinition(
        name: "count",
        title: "Count",
        idField: "n",
        views: [View(name: "all", sort: [SortKey("n")], idField: "n", cellType: .fixed("c"), fields: [])]
    )

    static func source(_ versions: [String]) -> StoreSource {
        StoreSource(kind: .query("SELECT 1 AS n"), fieldTypes: ["n": .integer], versionTables: versions)
    }

    static let signer = CursorSigner(secret: SampleList.secret)

    static func expectNamed(_ error: StoreError?) {
        #expect(
            error?.description.contains("'versions' names 'nosuch', which is not a table of the store") == true,
            "\(error.map { "\($0)" } ?? "no error")"
        )
        #expect(error?.description.contains("CREATE") == false)
    }

    @Test func sqlite() async throws {
        let fixture = try SQLiteFixture(items: [])
        let refused = #expect(throws: StoreError.self) {
            _ = try fixture.store.adapter(
                for: Self.list,
                source: Self.source(["sample", "nosuch"]),
                signer: Self.signer
            )
        }
        Self.expectNamed(refused)
        _ = try fixture.store.adapter(for: Self.list, source: Self.source(["sample"]), signer: Self.signer)
    }

    @Test func postgres() async throws {
        let fixture = try await PostgresFixture()
        let refused = await #expect(throws: StoreError.self) {
            _ = try await fixture.store.adapter(for: Self.list, source: Self.source(["nosuch"]), signer: Self.signer)
        }
        Self.expectNamed(refused)
        _ = try await fixture.store.adapter(for: Self.list, source: Self.source([]), signer: Self.signer)
    }

    /// A list over `table` with the sample's fields.
    static func over(_ table: String) -> StoreSource {
        StoreSource(kind: .table(table), fieldTypes: ["n": .integer], versionTables: [])
    }

    /// Expects a list over each of `tables`, and one whose `versions` names it, refused as
    /// `what` (and nothing made), and a list over a table made from its fields served.
    static func expectRefused(
        _ cases: [(table: String, what: String)],
        _ adapter: (StoreSource) async throws -> Void
    ) async throws {
        for (table, what) in cases {
            for (source, says) in [
                (over(table), "'\(table)' is \(what)"),
                (source([table]), "'versions' names '\(table)', which is \(what)"),
            ] {
                let refused = await #expect(throws: StoreError.self) { try await adapter(source) }
                let text = refused.map { "\($0)" } ?? "no error"
                #expect(text.contains(says) && !text.contains("CREATE"), "\(text)")
            }
        }
        try await adapter(over("fresh"))
    }

    @Test func sqliteViewsAndItsOwnTablesAreNotAListsTable() async throws {
        let fixture = try SQLiteFixture(items: [])
        try await fixture.store.database.write { db in
            try db.execute(sql: "CREATE TABLE base (n INTEGER PRIMARY KEY)")
            try db.execute(sql: "CREATE VIEW base_view AS SELECT * FROM base")
            try db.execute(sql: "CREATE VIRTUAL TABLE base_text USING fts5(title)")
        }
        try await Self.expectRefused(
            [
                ("base_view", "a view"), ("sqlite_master", "one of SQLite's own tables"),
                ("SQLITE_SEQUENCE", "one of SQLite's own tables"),
                ("base_text", "a virtual table"),
            ]
        ) { source in
            _ = try fixture.store.adapter(for: Self.list, source: source, signer: Self.signer)
        }
    }

    @Test func postgresViewsAndItsCatalogAreNotAListsTable() async throws {
        let fixture = try await PostgresFixture()
        for statement in [
            "CREATE TABLE base (n bigint PRIMARY KEY)",
            "CREATE VIEW base_view AS SELECT * FROM base",
            "CREATE MATERIALIZED VIEW base_copy AS SELECT * FROM base",
        ] {
            try await fixture.store.primary.query(PostgresQuery(unsafeSQL: statement))
        }
        try await Self.expectRefused(
            [
                ("base_view", "a view"), ("base_copy", "a materialized view"),
                ("pg_class", "PostgreSQL's own catalog"),
            ]
        ) { source in
            _ = try await fixture.store.adapter(for: Self.list, source: source, signer: Self.signer)
        }
    }
}
