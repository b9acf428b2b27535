import DataMediator
import DataMediatorPostgres
import DataMediatorSQL
import DataMediatorTesting
import Foundation
import PostgresNIO
import Testing

/// Values a PostgreSQL column or index cannot hold are the item's refusal (`422`), with
/// nothing stored, not a server error.
@Suite struct PostgresWriteRefusalTests {
    /// Whether each field problem says its reason rather than the whole detail again (a
    /// refusal's field detail was "the store refuses it: " and the detail).
    static func saysItOnce(_ error: DataMediatorError) -> Bool {
        error.fieldProblems.allSatisfy { !$0.detail.contains(error.message) }
    }

    static let fields: [String: FieldType] = ["id": .string, "a": .string, "b": .string, "small": .integer]

    static func definition(fields: [String: FieldType] = fields) -> ListDefinition {
        ListDefinition(
            name: "legacy",
            title: "Legacy",
            idField: "id",
            revisionField: "rev",
            views: [
                View(
                    name: "by_ab",
                    sort: [SortKey("a"), SortKey("b")],
                    idField: "id",
                    cellType: .fixed("row"),
                    fields: fields.keys.filter { $0 != "id" }.sorted()
                )
            ],
            isWritable: true,
            rules: FieldRules(types: fields.filter { $0.key != "id" })
        )
    }

    @Test func valuesAColumnOrAnIndexCannotHoldAreTheItemsRefusal() async throws {
        let fixture = try await PostgresFixture()
        try await fixture.store.primary.query(
            "CREATE TABLE legacy (id text PRIMARY KEY, a varchar(2000), b text, small smallint, rev bigint)"
        )
        let adapter = try await fixture.store.adapter(
            for: Self.definition(),
            source: StoreSource(kind: .table("legacy"), fieldTypes: Self.fields),
            signer: CursorSigner(secret: SampleList.secret)
        )
        _ = try await adapter.replace(id: "kept", body: .object(["data": .object(["small": .integer(1)])]))
        let start = try await adapter.currentVersion()
        // Random hex, which does not compress: three 1,024-byte keys pass an index entry's bound.
        func noise() -> String { String((0..<1024).map { _ in "0123456789abcdef".randomElement()! }) }
        let refused: [(String, [String: JSONValue])] = [
            ("x1", ["small": .integer(40_000)]), ("x2", ["small": .integer(-32_769)]),
            ("x3", ["a": .string(String(repeating: "é", count: 1_001))]),
            ("x4", ["a": .string(noise()), "b": .string(noise())]),
        ]
        for (id, data) in refused {
            let error = await #expect(throws: DataMediatorError.self, "\(data.keys.sorted())") {
                _ = try await adapter.replace(id: id == "x4" ? noise() : id, body: .object(["data": .object(data)]))
            }
            #expect(error?.code == .invalidItem, "\(String(describing: error))")
            // `errors` is there, as every invalid-item answer has it, naming the field
            // when one value is out of its column's range (checked before the statement:
            // PostgreSQL's "smallint out of range" names none).
            #expect(error?.fieldProblems.isEmpty == false, "\(String(describing: error))")
            // The field's detail gives the reason once, not the whole message again.
            #expect(error.map(Self.saysItOnce) == true, "\(String(describing: error))")
            if id == "x1" || id == "x2" {
                #expect(error?.fieldProblems.map(\.field) == ["small"], "\(String(describing: error))")
            }
        }
        let patch = await #expect(throws: DataMediatorError.self) {
            _ = try await adapter.patch(id: "kept", body: .object(["data": .object(["small": .integer(70_000)])]))
        }
        #expect(patch?.code == .invalidItem && patch?.fieldProblems.map(\.field) == ["small"])
        #expect(try await adapter.currentVersion() == start)
        guard case .object(let kept) = try await adapter.locate(id: "kept", view: nil).item.data else {
            Issue.record("no item")
            return
        }
        #expect(kept["small"] == .integer(1))
    }
}

extension PostgresWriteRefusalTests {
    /// An adapter of `legacy`, made with its usual columns and `columns` more, whose
    /// `fields` are the usual ones and those.
    static func adapter(
        _ fixture: PostgresFixture,
        columns: String,
        fields more: [String: FieldType]
    ) async throws -> ListAdapter {
        try await fixture.store.primary.query(
            PostgresQuery(
                unsafeSQL:
                    "CREATE TABLE legacy (id text PRIMARY KEY, a text, b text, small smallint, \(columns), rev bigint)"
            )
        )
        let fields = Self.fields.merging(more) { $1 }
        return try await fixture.store.adapter(
            for: Self.definition(fields: fields),
            source: StoreSource(kind: .table("legacy"), fieldTypes: fields),
            signer: CursorSigner(secret: SampleList.secret)
        )
    }

    /// A string field over a `uuid` column is written as a uuid (it was text into a uuid
    /// column: every such write was a server error), and text that is not one is the item's
    /// refusal.
    @Test func aStringFieldOverAUUIDColumnIsWrittenAsOne() async throws {
        let fixture = try await PostgresFixture()
        let adapter = try await Self.adapter(fixture, columns: "uid uuid", fields: ["uid": .string])
        let uid = "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"
        _ = try await adapter.replace(id: "u", body: .object(["data": .object(["uid": .string(uid)])]))
        _ = try await adapter.patch(id: "u", body: .object(["data": .object(["a": .string("x")])]))
        guard case .object(let stored) = try await adapter.locate(id: "u", view: nil).item.data else {
            Issue.record("no item")
            return
        }
        #expect(stored["uid"] == .string(uid))
        let error = await #expect(throws: DataMediatorError.self) {
            _ = try await adapter.replace(id: "v", body: .object(["data": .object(["uid": .string("not-a-uuid")])]))
        }
        #expect(error?.code == .invalidItem)
    }
}

extension PostgresWriteRefusalTests {
    /// An import's record whose values its columns cannot hold is a bad record, named by
    /// its line and why: it stops the import (nothing stored), or with skipBad is left out
    /// while the records around it are stored (PostgreSQL ends a transaction at an error,
    /// so each record runs under a savepoint). It was a database error that ended the
    /// import either way.
    @Test func anImportedRecordAColumnCannotHoldIsABadRecord() async throws {
        let fixture = try await PostgresFixture()
        try await fixture.store.primary.query(
            "CREATE TABLE legacy (id text PRIMARY KEY, a varchar(3), b text, small smallint, rev bigint)"
        )
        let source = StoreSource(kind: .table("legacy"), fieldTypes: Self.fields)
        let provider = try await fixture.store.provider(for: Self.definition(), source: source)
        let importer = try SQLImporter(reader: provider.reader, list: Self.definition(), source: source)
        let records = [
            ImportRecord(line: 1, fields: ["id": .string("r1"), "small": .integer(1)]),
            ImportRecord(line: 2, fields: ["id": .string("r2"), "small": .integer(40_000)]),
            ImportRecord(line: 3, fields: ["id": .string("r3"), "a": .string("four")]),
            ImportRecord(line: 4, fields: ["id": .string("r4"), "small": .integer(4)]),
        ]
        let stopped = await #expect(throws: ImportStopped.self) {
            _ = try await importer.run(records, skipBad: false)
        }
        #expect(stopped?.rejection.line == 2)
        #expect(
            stopped?.rejection.reason.contains("'small' must be from -32768 to 32767") == true,
            "\(String(describing: stopped))"
        )
        let summary = try await importer.run(records, skipBad: true, batch: 10)
        #expect(summary.imported == 2 && summary.rejections.map(\.line) == [2, 3])
        #expect(summary.rejections.last?.reason.contains("'a' must be at most 3 characters") == true)

        // A write too; blanks past the bound are dropped, as PostgreSQL drops them.
        let adapter = try await fixture.store.adapter(
            for: Self.definition(),
            source: source,
            signer: CursorSigner(secret: SampleList.secret)
        )
        let long = await #expect(throws: DataMediatorError.self) {
            _ = try await adapter.patch(id: "r1", body: .object(["data": .object(["a": .string("four")])]))
        }
        #expect(long?.fieldProblems.map(\.field) == ["a"], "\(String(describing: long))")
        let padded = try await adapter.patch(id: "r1", body: .object(["data": .object(["a": .string("ab  ")])]))
        #expect(padded.cell.data == .object(["a": .string("ab "), "b": .null, "small": .integer(1)]))
        let stored = try await fixture.store.primary.query("SELECT id FROM legacy ORDER BY id")
        var ids: [String] = []
        for try await id in stored.decode(String.self) { ids.append(id) }
        #expect(ids == ["r1", "r4"])
    }
}

extension PostgresWriteRefusalTests {
    /// A column whose type is a domain with a check (`CREATE DOMAIN ... CHECK`): a value the
    /// check refuses is the item's refusal naming the field (PostgreSQL's message names the
    /// domain, never the column), and the domain's base type keeps its bounds (a
    /// `smallint` domain's value past them is refused before the statement).
    @Test func aDomainsCheckRefusalNamesItsField() async throws {
        let fixture = try await PostgresFixture()
        for statement in [
            "CREATE DOMAIN short_code AS varchar(4) CHECK (VALUE ~ '^[a-z]+$')",
            "CREATE DOMAIN positive AS smallint CHECK (VALUE > 0)",
            "CREATE TABLE legacy (id text PRIMARY KEY, a short_code, b text, small positive, rev bigint)",
        ] {
            try await fixture.store.primary.query(PostgresQuery(unsafeSQL: statement))
        }
        let adapter = try await fixture.store.adapter(
            for: Self.definition(),
            source: StoreSource(kind: .table("legacy"), fieldTypes: Self.fields),
            signer: CursorSigner(secret: SampleList.secret)
        )
        _ = try await adapter.replace(
            id: "ok",
            body: .object(["data": .object(["a": .string("abc"), "small": .integer(2)])])
        )
        let start = try await adapter.currentVersion()
        for (data, field, says) in [
            (["a": JSONValue.string("AB1"), "small": .integer(3)], "a", "short_code"),
            (["a": .string("abc"), "small": .integer(-1)], "small", "positive"),
            (["small": .integer(40_000)], "small", "smallint"),
            (["a": .string("abcdef")], "a", "varchar(4)"),
        ] as [([String: JSONValue], String, String)] {
            let error = await #expect(throws: DataMediatorError.self, "\(data)") {
                _ = try await adapter.replace(id: "x", body: .object(["data": .object(data)]))
            }
            #expect(error?.code == .invalidItem, "\(String(describing: error))")
            #expect(error?.fieldProblems.map(\.field) == [field], "\(data): \(String(describing: error))")
            #expect(error?.message.contains(says) == true, "\(data): \(String(describing: error?.message))")
            #expect(error.map(Self.saysItOnce) == true, "\(String(describing: error))")
        }
        #expect(try await adapter.currentVersion() == start)
    }
}

extension PostgresWriteRefusalTests {
    /// A number a `real` column cannot hold (past a 32-bit float's range, or nearer 0 than
    /// its smallest) is refused naming its field, in an array's element too: PostgreSQL's
    /// "value out of range: overflow" named `data` (probe 41).
    @Test func aNumberARealColumnCannotHoldIsRefusedNamingItsField() async throws {
        let fixture = try await PostgresFixture()
        let adapter = try await Self.adapter(
            fixture,
            columns: "r real, rs real[]",
            fields: ["r": .number, "rs": .json]
        )
        for (field, value) in [
            ("r", JSONValue.number(1e39)), ("r", .number(-1e39)), ("r", .number(1e-50)),
            ("rs", .array([.number(1), .number(1e39)])),
        ] {
            let error = await #expect(throws: DataMediatorError.self, "\(value)") {
                _ = try await adapter.replace(id: "x", body: .object(["data": .object([field: value])]))
            }
            #expect(
                error?.code == .invalidItem && error?.fieldProblems.map(\.field) == [field],
                "\(String(describing: error))"
            )
            #expect(error?.fieldProblems.first?.detail.contains("its column is real") == true)
        }
        // What a 32-bit float holds is stored: its largest, a subnormal, an integer.
        for value in [JSONValue.number(3.4e38), .number(1e-40), .integer(16_777_216)] {
            _ = try await adapter.replace(id: "ok", body: .object(["data": .object(["r": value])]))
        }
    }
}
