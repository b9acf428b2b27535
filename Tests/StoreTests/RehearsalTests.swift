import DataMediator
import DataMediatorPostgres
import DataMediatorSQL
import DataMediatorSQLite
import DataMediatorTesting
import Foundation
import GRDB
import PostgresNIO
import Testing

/// A list's source is checked in a transaction that is rolled back (`rehearse`) before any
/// list is prepared, so that a config refused for one list leaves nothing made for the
/// others: no table, no column, no index.
@Suite struct RehearsalTests {
    static let fields: [String: FieldType] = ["id": .string, "title": .string]

    static func definition(_ name: String, writable: Bool = true, sort: String = "title") -> ListDefinition {
        ListDefinition(
            name: name,
            title: name,
            idField: "id",
            revisionField: writable ? "rev" : nil,
            views: [View(name: "all", sort: [SortKey(sort)], idField: "id", cellType: .fixed("note"), fields: [sort])],
            isWritable: writable,
            rules: FieldRules(types: fields.filter { $0.key != "id" })
        )
    }

    /// A store of `kind` with a table `old (id, title)` and no table `notes`: what a
    /// rehearsal does to it, how it refuses, and the store prepared for real afterwards.
    @Test(arguments: [WritableKind.sqlite, .postgres])
    func aRehearsalLeavesNothingMadeAndRefusesAsPreparingWould(kind: WritableKind) async throws {
        let signer = CursorSigner(secret: SampleList.secret)
        let notes = StoreSource(kind: .table("notes"), fieldTypes: Self.fields)
        let wrongColumn = StoreSource(kind: .table("old"), fieldTypes: ["id": .string, "headline": .string])
        let writableQuery = StoreSource(kind: .query("SELECT id, title FROM old"), fieldTypes: Self.fields)
        let noteTitles = StoreSource(kind: .query("SELECT id, title FROM notes"), fieldTypes: Self.fields)
        let create = "CREATE TABLE old (id text PRIMARY KEY NOT NULL, title text)"

        let rehearse: ([(list: ListDefinition, source: StoreSource)]) async throws -> [StoreError]
        let adapter: (ListDefinition, StoreSource) async throws -> ListAdapter
        let relations: () async throws -> [String]
        let holds: Any
        if kind == .postgres {
            let fixture = try await PostgresFixture()
            holds = fixture
            try await fixture.store.primary.query(PostgresQuery(unsafeSQL: create))
            rehearse = { try await fixture.store.rehearse($0) }
            adapter = { try await fixture.store.adapter(for: $0, source: $1, signer: signer) }
            relations = {
                var names: [String] = []
                let rows = try await fixture.store.primary.query(
                    "SELECT relname FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relname NOT LIKE 'data_mediator%' ORDER BY relname"
                )
                for try await name in rows.decode(String.self) { names.append(name) }
                return names
            }
        } else {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("dm-rehearse-\(UUID()).sqlite")
                .path
            try await DatabaseQueue(path: path).write { try $0.execute(sql: create) }
            let store = try SQLiteStore(path: path)
            holds = store
            rehearse = { try store.rehearse($0) }
            adapter = { try store.adapter(for: $0, source: $1, signer: signer) }
            relations = {
                try await store.database.read { db in
                    try String.fetchAll(
                        db,
                        sql: "SELECT name FROM sqlite_master WHERE name NOT LIKE 'data_mediator%' "
                            + "AND name NOT LIKE 'sqlite_%' ORDER BY name"
                    )
                }
            }
        }
        defer { withExtendedLifetime(holds) {} }
        let before = try await relations()
        #expect(before.contains("old") && !before.contains("notes"), "\(before)")

        // A list over a missing table passes, and its table is not made; the existing one
        // gets no revision column or index. A query list reads the table an earlier list makes.
        let passed = try await rehearse([
            (Self.definition("notes"), notes),
            (Self.definition("old_notes"), StoreSource(kind: .table("old"), fieldTypes: Self.fields)),
            (Self.definition("titles", writable: false), noteTitles),
        ])
        #expect(passed.isEmpty, "\(passed)")
        #expect(try await relations() == before)

        // What preparing refuses, the rehearsal refuses, naming the list; the lists after
        // a refused one are still checked, and nothing is made for any of them.
        let refused = try await rehearse([
            (Self.definition("wrong", writable: false, sort: "headline"), wrongColumn),
            (Self.definition("notes"), notes),
            (Self.definition("by_query"), writableQuery),
            (Self.definition("titles", writable: false), noteTitles),
        ])
        #expect(refused.map(\.list) == ["wrong", "by_query"], "\(refused)")
        #expect(refused.first?.message.contains("headline") == true, "\(refused)")
        #expect(try await relations() == before)

        // Prepared for real after a rehearsal: the table is made, and takes writes.
        let list = try await adapter(Self.definition("notes"), notes)
        _ = try await list.create(body: .object(["id": .string("a"), "data": .object(["title": .string("A")])]))
        let page = try await list.page(view: "all", limit: "10", cursor: nil)
        #expect(page.sections.flatMap(\.items).map(\.id) == ["a"])
        #expect(try await relations().contains("notes"))
    }
}

extension RehearsalTests {
    /// A PostgreSQL query list that calls a function that writes is refused at start,
    /// before and when it is prepared (reads run read-only: each would answer `500`), and
    /// the function's write is not kept; a query that only reads passes. So is a writable
    /// list whose revision column is not an integer (each PATCH answered `500`).
    @Test func aQueryCallingAFunctionThatWritesIsRefused() async throws {
        let fixture = try await PostgresFixture()
        for statement in [
            "CREATE TABLE t (id text PRIMARY KEY, title text)", "INSERT INTO t VALUES ('a', 'A'), ('b', 'B')",
            "CREATE TABLE calls (n serial)",
            """
            CREATE FUNCTION logged(i text) RETURNS text LANGUAGE plpgsql AS $$
            BEGIN INSERT INTO calls DEFAULT VALUES; RETURN i; END $$
            """,
        ] {
            try await fixture.store.primary.query(PostgresQuery(unsafeSQL: statement))
        }
        // A writable list's revision column must take `rev + 1`: a text one is refused.
        try await fixture.store.primary.query("CREATE TABLE texts (id text PRIMARY KEY, title text, rev text)")
        let texts = try await fixture.store.rehearse([
            (Self.definition("texts"), StoreSource(kind: .table("texts"), fieldTypes: Self.fields))
        ])
        #expect(texts.first?.message.contains("column 'rev' holds the items' revision") == true, "\(texts)")
        let writing = StoreSource(kind: .query("SELECT logged(id) AS id, title FROM t"), fieldTypes: Self.fields)
        let reading = StoreSource(kind: .query("SELECT id, title FROM t"), fieldTypes: Self.fields)
        let refused = try await fixture.store.rehearse([
            (Self.definition("writing", writable: false), writing),
            (Self.definition("reading", writable: false), reading),
        ])
        #expect(refused.map(\.list) == ["writing"], "\(refused)")
        #expect(refused.first?.message.contains("its query writes") == true, "\(refused)")
        await #expect(throws: StoreError.self) {
            _ = try await fixture.store.provider(for: Self.definition("writing", writable: false), source: writing)
        }
        _ = try await fixture.store.provider(for: Self.definition("reading", writable: false), source: reading)
        let calls = try await fixture.store.primary.query("SELECT count(*)::bigint FROM calls")
        var count: Int64 = -1
        for try await value in calls.decode(Int64.self) { count = value }
        #expect(count == 0)
    }
}
