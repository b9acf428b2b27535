import DataMediator
import DataMediatorPostgres
import DataMediatorTesting
import PostgresNIO
import Testing

extension PostgresFixture {
    /// The definitions of `table`'s indexes, by name.
    func indexDefinitions(of table: String) async throws -> [String] {
        let rows = try await store.primary.query(
            "SELECT indexdef FROM pg_indexes WHERE tablename = \(table) ORDER BY indexname"
        )
        var definitions: [String] = []
        for try await definition in rows.decode(String.self) { definitions.append(definition) }
        return definitions
    }

    /// The plan PostgreSQL makes for `sql` when a sequential scan is its last resort (so an
    /// index that serves the statement is used even on a small table).
    func plan(_ sql: String) async throws -> String {
        try await store.primary.withConnection { connection in
            try await connection.query("SET enable_seqscan = off", logger: Self.logger)
            var plan = ""
            for try await line in try await connection.query(
                PostgresQuery(unsafeSQL: "EXPLAIN " + sql),
                logger: Self.logger
            )
            .decode(String.self) {
                plan += line + "\n"
            }
            return plan
        }
    }
}

/// The checks of a view over a column the store reads as text of another type: walked
/// page by page it is `expected` (ids in view order), and opened at an item (its first,
/// one inside, its last) the page holds it and `locate` places it.
func expectWalksAndOpens(_ adapter: ListAdapter, view name: String?, expected: [String]) async throws {
    for limit in [1, 7] {
        var check = try await SampleList.walk(adapter, view: name, limit: limit)
        check.expectOrder(expected)
        #expect(check.violations == [], "\(name ?? "default"), limit \(limit)")
    }
    for id in [expected[0], expected[expected.count / 3], expected[expected.count - 1]] {
        let page = try await adapter.page(view: name, limit: "5", cursor: nil, around: id)
        #expect(page.items.map(\.id).contains(id), "\(name ?? "default") around \(id)")
        let location = try await adapter.locate(id: id, view: name)
        #expect(location.item.id == id)
        #expect(expected.firstIndex(of: id) == location.position, "\(name ?? "default") \(id)")
    }
}
