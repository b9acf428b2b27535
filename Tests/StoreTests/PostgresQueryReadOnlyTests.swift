import DataMediator
import DataMediatorPostgres
import DataMediatorSQL
import DataMediatorTesting
import Testing

/// A list over a query runs its text read-only: a query that calls a function that writes
/// (which no check of its text can see) is refused at start when its first row writes, and
/// when read when only later rows do; it writes nothing either way.
@Suite struct PostgresQueryReadOnlyTests {
    @Test func aQueryThatCallsAFunctionThatWritesWritesNothing() async throws {
        let fixture = try await PostgresFixture()
        try await fixture.store.transactions.write { session in
            try await session.execute("CREATE TABLE victim (n integer)", [])
            try await session.execute(
                "CREATE FUNCTION w() RETURNS integer LANGUAGE sql VOLATILE AS 'INSERT INTO victim VALUES (1) RETURNING 1'",
                []
            )
        }
        let definition = ListDefinition(
            name: "q",
            title: "Q",
            idField: "n",
            views: [View(name: "v", sort: [SortKey("n")], idField: "n", cellType: .fixed("row"), fields: ["n"])]
        )
        await #expect(throws: StoreError.self) {
            _ = try await fixture.store.adapter(
                for: definition,
                source: StoreSource(kind: .query("SELECT w() AS n"), fieldTypes: ["n": .integer]),
                signer: CursorSigner(secret: SampleList.secret)
            )
        }
        // The first row calls nothing; the second does.
        let query = "SELECT CASE WHEN i > 1 THEN w() + i ELSE i END AS n FROM generate_series(1, 3) AS i"
        let adapter = try await fixture.store.adapter(
            for: definition,
            source: StoreSource(kind: .query(query), fieldTypes: ["n": .integer]),
            signer: CursorSigner(secret: SampleList.secret)
        )
        await #expect(throws: (any Error).self) { _ = try await adapter.page(view: nil, limit: nil, cursor: nil) }
        _ = try? await adapter.page(view: nil, limit: nil, cursor: nil, around: "1")
        _ = try? await adapter.locate(id: "1", view: nil)
        _ = try? await adapter.sectionInfo(view: nil)
        let stored = try await fixture.store.transactions.read { session in
            try await session.integer("SELECT COUNT(*) FROM victim", [])
        }
        #expect(stored == 0)
    }
}
