import DataMediator
import DataMediatorPostgres
import DataMediatorSQL
import DataMediatorSQLite
import DataMediatorTesting
import Foundation
import GRDB
import PostgresNIO
import Testing

/// A `PATCH` writes the fields it names and leaves the others as they are stored (RFC
/// 7396). It wrote the whole merged item as the service shows it, so a value shown
/// otherwise than it is kept changed under a patch of another field: a json document's
/// integer past a double's digits was rounded, PostgreSQL's numeric `NaN` became NULL and
/// its digits past a double's were lost, a date BC became AD, and an array of two
/// dimensions made every patch a 422.
@Suite struct PatchWritesNamedFieldsTests {
    static let fields: [String: FieldType] = ["id": .string, "title": .string, "meta": .json]

    static let definition = ListDefinition(
        name: "docs",
        title: "Docs",
        idField: "id",
        revisionField: "rev",
        views: [
            View(name: "all", sort: [SortKey("id")], idField: "id", cellType: .fixed("doc"), fields: ["title", "meta"])
        ],
        isWritable: true,
        rules: FieldRules(types: fields.filter { $0.key != "id" })
    )

    /// A document whose integer has more digits than a double keeps.
    static let document = #"{"n": 12345678901234567890123}"#

    @Test(arguments: [WritableKind.sqlite, .postgres])
    func aPatchLeavesTheFieldsItDoesNotNameAsStored(kind: WritableKind) async throws {
        let source = StoreSource(kind: .table("docs"), fieldTypes: Self.fields)
        let signer = CursorSigner(secret: SampleList.secret)
        let adapter: ListAdapter
        let stored: () async throws -> String?
        let holds: Any
        if kind == .postgres {
            let fixture = try await PostgresFixture()
            try await fixture.store.primary.query(
                "CREATE TABLE docs (id text PRIMARY KEY, rev bigint, title text, meta json)"
            )
            try await fixture.store.primary.query(
                PostgresQuery(unsafeSQL: "INSERT INTO docs VALUES ('a', 1, 't', '\(Self.document)')")
            )
            adapter = try await fixture.store.adapter(for: Self.definition, source: source, signer: signer)
            stored = {
                var texts: [String] = []
                for try await text in try await fixture.store.primary.query(
                    "SELECT CAST(meta AS text) FROM docs WHERE id = 'a'"
                ).decode(String.self) { texts.append(text) }
                return texts.first
            }
            holds = fixture
        } else {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("dm-patch-\(UUID()).sqlite").path
            let queue = try DatabaseQueue(path: path)
            try await queue.write { db in
                try db.execute(
                    sql: "CREATE TABLE docs (id text PRIMARY KEY NOT NULL, rev bigint, title text, meta text)"
                )
                try db.execute(sql: "INSERT INTO docs VALUES ('a', 1, 't', ?)", arguments: [Self.document])
            }
            let store = try SQLiteStore(path: path)
            adapter = try store.adapter(for: Self.definition, source: source, signer: signer)
            stored = { try await queue.read { try String.fetchOne($0, sql: "SELECT meta FROM docs WHERE id = 'a'") } }
            holds = store
        }
        defer { withExtendedLifetime(holds) {} }

        let patched = try await adapter.patch(id: "a", body: .object(["data": .object(["title": .string("u")])]))
        guard case .object(let data) = patched.cell.data else {
            Issue.record("no data")
            return
        }
        #expect(data["title"] == .string("u"))
        #expect(patched.cell.rev == "2")
        #expect(try await stored() == Self.document, "a field the patch does not name is not written")
        // A patch that names it writes it.
        _ = try await adapter.patch(id: "a", body: .object(["data": .object(["meta": .object(["n": .integer(1)])])]))
        #expect(try await stored() == #"{"n":1}"#)
    }
}

extension PatchWritesNamedFieldsTests {
    /// A patch checks the values it names and the merged item's required fields, not the
    /// values it leaves: a value of another type that another program stored in a field
    /// (SQLite keeps text in an INTEGER column) made every patch of the item a 422 naming
    /// that field, though the patch leaves it as it is.
    @Test func aPatchIsNotRefusedForAValueItLeaves() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("dm-stray-\(UUID()).sqlite").path
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in
            try db.execute(sql: "CREATE TABLE docs (id text PRIMARY KEY NOT NULL, rev bigint, title text, n integer)")
            try db.execute(sql: "INSERT INTO docs VALUES ('a', 1, 't', 'many')")
        }
        let fields: [String: FieldType] = ["id": .string, "title": .string, "n": .integer]
        let definition = ListDefinition(
            name: "docs",
            title: "Docs",
            idField: "id",
            revisionField: "rev",
            views: [
                View(name: "all", sort: [SortKey("id")], idField: "id", cellType: .fixed("doc"), fields: ["title"])
            ],
            isWritable: true,
            rules: FieldRules(types: fields.filter { $0.key != "id" }, required: ["n"])
        )
        let store = try SQLiteStore(path: path)
        let adapter = try store.adapter(
            for: definition,
            source: StoreSource(kind: .table("docs"), fieldTypes: fields),
            signer: CursorSigner(secret: SampleList.secret)
        )
        _ = try await adapter.patch(id: "a", body: .object(["data": .object(["title": .string("u")])]))
        #expect(try await queue.read { try String.fetchOne($0, sql: "SELECT n FROM docs") } == "many")
        // What it names is checked, and a required field it empties.
        for data: [String: JSONValue] in [["n": .string("x")], ["n": .null]] {
            await #expect(throws: DataMediatorError.self) {
                _ = try await adapter.patch(id: "a", body: .object(["data": .object(data)]))
            }
        }
    }
}
