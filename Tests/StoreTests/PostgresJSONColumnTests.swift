import DataMediator
import DataMediatorPostgres
import DataMediatorSQL
import DataMediatorTesting
import Foundation
import PostgresNIO
import Testing

/// A json field over a PostgreSQL `json` or `jsonb` column is written and imported as
/// JSON (PostgreSQL takes the JSON text only through a cast) and read back as the value.
@Suite struct PostgresJSONColumnTests {
    static let fields: [String: FieldType] = ["id": .string, "title": .string, "meta": .json, "raw": .json]

    static let definition = ListDefinition(
        name: "docs",
        title: "Docs",
        idField: "id",
        revisionField: "rev",
        views: [
            View(
                name: "by_title",
                sort: [SortKey("title")],
                idField: "id",
                cellType: .fixed("doc"),
                fields: ["meta", "raw", "title"]
            )
        ],
        isWritable: true,
        rules: FieldRules(types: fields.filter { $0.key != "id" })
    )

    static func table(_ fixture: PostgresFixture) async throws {
        try await fixture.store.primary.query(
            "CREATE TABLE docs (id text PRIMARY KEY, title text COLLATE \"C\", meta jsonb, raw json, rev bigint)"
        )
    }

    @Test func jsonAndJSONBColumnsAreWrittenAndReadBackAsValues() async throws {
        let fixture = try await PostgresFixture()
        try await Self.table(fixture)
        let adapter = try await fixture.store.adapter(
            for: Self.definition,
            source: StoreSource(kind: .table("docs"), fieldTypes: Self.fields),
            signer: CursorSigner(secret: SampleList.secret)
        )
        let values: [JSONValue] = [
            .object(["tags": .array([.string("a"), .integer(2)]), "deep": .object(["x": .bool(true)])]),
            .array([]), .string("text, not an object"), .integer(7), .number(2.5), .bool(false), .null,
        ]
        for (index, value) in values.enumerated() {
            let data: JSONValue = .object(["title": .string("t\(index)"), "meta": value, "raw": value])
            let written = try await adapter.replace(id: "d\(index)", body: .object(["data": data]))
            #expect(written.cell.data.objectValue?["meta"] == value, "written \(value)")
        }
        let patched = try await adapter.patch(
            id: "d0",
            body: .object(["data": .object(["meta": .object(["n": .integer(1)])])])
        )
        // A merge patch (RFC 7396) merges into the stored object.
        #expect(
            patched.cell.data.objectValue?["meta"]
                == .object([
                    "tags": .array([.string("a"), .integer(2)]), "deep": .object(["x": .bool(true)]), "n": .integer(1),
                ])
        )
        #expect(patched.cell.data.objectValue?["raw"] == values[0])
        // The rows hold JSON (a jsonb object is one, not a string holding one).
        let kinds = try await fixture.store.primary.query(
            "SELECT jsonb_typeof(meta), json_typeof(raw) FROM docs WHERE id = 'd1'"
        )
        for try await (meta, raw) in kinds.decode((String, String).self) {
            #expect(meta == "array" && raw == "array")
        }
        for (index, value) in values.enumerated().dropFirst() {
            let read = try await adapter.locate(id: "d\(index)", view: nil).item.data.objectValue
            #expect(read?["meta"] == value && read?["raw"] == value, "read \(value)")
        }
    }

    @Test func anImportWritesJSONIntoJSONBColumns() async throws {
        let fixture = try await PostgresFixture()
        try await Self.table(fixture)
        let provider = try await fixture.store.provider(
            for: Self.definition,
            source: StoreSource(kind: .table("docs"), fieldTypes: Self.fields)
        )
        let importer = try SQLImporter(
            reader: provider.reader,
            list: Self.definition,
            source: StoreSource(kind: .table("docs"), fieldTypes: Self.fields)
        )
        let records = (1...3).map { number in
            ImportRecord(
                line: number,
                fields: [
                    "id": .string("i\(number)"), "title": .string("t\(number)"),
                    "meta": .object(["n": .integer(Int64(number))]), "raw": .array([.integer(Int64(number))]),
                ]
            )
        }
        let summary = try await importer.run(records, skipBad: false)
        #expect(summary.imported == 3)
        let read = try await provider.reader.transactions.read { session in
            try await session.rows("SELECT meta ->> 'n' FROM docs ORDER BY id", [])
        }
        #expect(read.map { $0.first } == [.string("1"), .string("2"), .string("3")])
    }

    /// A string field over a json or jsonb column would be read back as the JSON value its
    /// text made (an object where a string is promised), and a number or boolean could not
    /// be written: the store refuses the list at start and says what to declare.
    @Test(arguments: ["meta", "raw"], [FieldType.string, .integer, .number, .boolean])
    func aFieldOfAnotherTypeOverAJSONColumnIsRefusedAtStart(field: String, type: FieldType) async throws {
        let fixture = try await PostgresFixture()
        try await Self.table(fixture)
        var fields = Self.fields
        fields[field] = type
        let definition = ListDefinition(
            name: "docs",
            title: "Docs",
            idField: "id",
            revisionField: "rev",
            views: Self.definition.views,
            isWritable: true,
            rules: FieldRules(types: fields.filter { $0.key != "id" })
        )
        let error = await #expect(throws: StoreError.self) {
            _ = try await fixture.store.adapter(
                for: definition,
                source: StoreSource(kind: .table("docs"), fieldTypes: fields),
                signer: CursorSigner(secret: SampleList.secret)
            )
        }
        let message = error.map { "\($0)" } ?? ""
        #expect(message.contains("'\(field)' (\(type.rawValue))") && message.contains("declare it json"), "\(message)")
    }
}
