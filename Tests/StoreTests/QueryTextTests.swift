import DataMediator
import DataMediatorPostgres
import DataMediatorSQL
import DataMediatorSQLite
import DataMediatorTesting
import Foundation
import GRDB
import PostgresNIO
import Testing

/// A query list's query runs as written, in both stores: one that holds a placeholder is
/// refused at start (SQLite read it as `NULL` and PostgreSQL's numbering made it one of
/// the service's, so start passed and every read failed), and one that ends in a
/// `-- comment`, with a quote in it, is served, slices and all (it was "incomplete input",
/// and PostgreSQL's numbering took the comment's quote for a string's).
@Suite struct QueryTextTests {
    static let fields: [String: FieldType] = ["id": .integer, "word": .string, "kind": .string]

    static let definition = ListDefinition(
        name: "words",
        title: "Words",
        idField: "id",
        views: [
            View(
                name: "by_id",
                sort: [SortKey("id")],
                idField: "id",
                cellType: .fixed("word"),
                fields: ["word", "kind"],
                parameters: [ViewParameter(name: "kind", field: "kind", type: .string, isRequired: false)]
            )
        ],
        rules: FieldRules(types: fields.filter { $0.key != "id" })
    )

    static let rows = (1...6).map { "(\($0), 'w\($0)', '\($0 % 2 == 0 ? "even" : "odd")')" }.joined(separator: ", ")

    /// Each store's name and what makes the list's adapter over a query.
    static func stores() async throws -> [(
        name: String, adapter: @Sendable (String) async throws -> ListAdapter
    )] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("dm-query-\(UUID()).sqlite").path
        try await DatabaseQueue(path: path).write { db in
            try db.execute(sql: "CREATE TABLE words (id INTEGER PRIMARY KEY, word TEXT, kind TEXT)")
            try db.execute(sql: "INSERT INTO words VALUES \(Self.rows)")
        }
        let sqlite = try SQLiteStore(path: path)
        let fixture = try await PostgresFixture()
        try await fixture.store.primary.query(
            PostgresQuery(unsafeSQL: "CREATE TABLE words (id bigint PRIMARY KEY, word text, kind text)")
        )
        try await fixture.store.primary.query(PostgresQuery(unsafeSQL: "INSERT INTO words VALUES \(Self.rows)"))
        let signer = CursorSigner(secret: SampleList.secret)
        @Sendable func source(_ query: String) -> StoreSource {
            StoreSource(kind: .query(query), fieldTypes: Self.fields)
        }
        return [
            (
                "sqlite",
                { query in try sqlite.adapter(for: Self.definition, source: source(query), signer: signer) }
            ),
            (
                "postgres",
                { query in
                    _ = fixture
                    return try await fixture.store.adapter(for: Self.definition, source: source(query), signer: signer)
                }
            ),
        ]
    }

    @Test func aQueryWithAPlaceholderIsRefusedAndOneWithACommentIsServed() async throws {
        for (store, adapter) in try await Self.stores() {
            var placeholders = ["SELECT * FROM words WHERE kind <> ?", "SELECT * FROM words -- odd\nWHERE kind = ?"]
            if store == "sqlite" {
                placeholders += ["SELECT * FROM words WHERE id > ?1", "SELECT * FROM words WHERE kind = :k"]
            }
            for query in placeholders {
                let error = await #expect(throws: StoreError.self, "\(store): \(query)") {
                    _ = try await adapter(query)
                }
                #expect("\(error.map { "\($0)" } ?? "")".contains("its query holds a placeholder"), "\(store)")
            }
            // A `?` in a string or a comment is no placeholder; the comment ends the query.
            let served = try await adapter("SELECT id, word, kind FROM words WHERE word <> '?' -- don't ask? /*")
            let page = try await served.page(
                view: "by_id",
                limit: "2",
                cursor: nil,
                slice: SliceRequest(parameters: ["kind": ["even"]])
            )
            #expect(page.items.map(\.id) == ["2", "4"], "\(store)")
            let next = try await served.page(
                view: "by_id",
                limit: "2",
                cursor: page.next,
                slice: SliceRequest(parameters: ["kind": ["even"]])
            )
            #expect(next.items.map(\.id) == ["6"], "\(store)")
        }
    }
}
