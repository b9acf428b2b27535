import DataMediator
import DataMediatorPostgres
import DataMediatorSQL
import DataMediatorTesting
import PostgresNIO
import Testing

/// A PostgreSQL table whose id column is not unique is refused at start, naming the
/// column and the way out (its items repeated in walks, an id named several); a unique
/// index on it alone is enough, a partial one is not.
@Suite struct PostgresUniqueIDTests {
    static let fields: [String: FieldType] = ["id": .integer, "title": .string]

    static let definition = ListDefinition(
        name: "logs",
        title: "Logs",
        idField: "id",
        views: [View(name: "all", sort: [SortKey("id")], idField: "id", cellType: .fixed("log"), fields: ["title"])]
    )

    @Test func anIdColumnThatIsNotUniqueIsRefusedAtStart() async throws {
        let fixture = try await PostgresFixture()
        for statement in [
            "CREATE TABLE logs (id bigint, title text)", "INSERT INTO logs VALUES (1, 'a'), (1, 'b')",
            "CREATE UNIQUE INDEX logs_some ON logs (id) WHERE id > 5",
        ] {
            try await fixture.store.primary.query(PostgresQuery(unsafeSQL: statement))
        }
        func provider(_ table: String) async throws {
            _ = try await fixture.store.provider(
                for: Self.definition,
                source: StoreSource(kind: .table(table), fieldTypes: Self.fields)
            )
        }
        await #expect {
            try await provider("logs")
        } throws: { error in
            "\(error)".contains("its id column 'id' is not unique in table 'logs'")
        }
        try await fixture.store.primary.query("DELETE FROM logs WHERE title = 'b'")
        try await fixture.store.primary.query("CREATE UNIQUE INDEX logs_id ON logs (id)")
        try await provider("logs")
    }
}
