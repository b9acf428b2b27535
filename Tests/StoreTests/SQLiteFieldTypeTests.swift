import DataMediator
import DataMediatorSQL
import DataMediatorSQLite
import DataMediatorTesting
import Foundation
import GRDB
import Testing

/// A declared field over a SQLite column whose affinity keeps another type is refused at
/// start, as PostgreSQL refuses one (the rule lives once, in `DataMediatorSQL`): a `string`
/// id over an INTEGER column took `PUT /items/007` as item 7, a `string` field over a REAL
/// one turned `"007"` into 7, and an `integer` field over TEXT answered `"5"`. The pairs
/// that fit (whole numbers as numbers, NUMERIC as either, booleans as SQLite keeps them,
/// json over text, any field over an untyped or date column) are served.
@Suite struct SQLiteFieldTypeTests {
    static let table = """
        CREATE TABLE things (id INTEGER PRIMARY KEY, word TEXT, score REAL, amount NUMERIC, flag BOOLEAN,
            count INT, label VARCHAR(20), anything, stamp DATETIME, doc JSON, rev INTEGER NOT NULL DEFAULT 1)
        """

    static func definition(_ fields: [String: FieldType], writable: Bool) -> ListDefinition {
        PostgresFieldTypeTests.definition(
            fields,
            writable: writable,
            shown: ["word", "score", "amount", "flag", "count", "label", "anything", "stamp", "doc"]
        )
    }

    static func fields(_ changes: [String: FieldType]) -> [String: FieldType] {
        let fitting: [String: FieldType] = [
            "id": .integer, "word": .string, "score": .number, "amount": .number, "flag": .boolean,
            "count": .integer, "label": .string, "anything": .string, "stamp": .string, "doc": .json,
        ]
        return fitting.merging(changes) { _, changed in changed }
    }

    static func store() async throws -> SQLiteStore {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("dm-types-\(UUID()).sqlite").path
        try await DatabaseQueue(path: path).write { db in try db.execute(sql: Self.table) }
        return try SQLiteStore(path: path)
    }

    @Test(arguments: [
        ("word", FieldType.integer, "over a text column: declare it string or json"),
        ("word", .boolean, "declare it string or json"),
        ("label", .number, "over a varchar(20) column: declare it string or json"),
        ("score", .integer, "over a real column: declare it number"),
        ("score", .string, "declare it number"),
        ("count", .string, "over an int column: declare it integer or number or boolean"),
        ("amount", .string, "over a numeric column: declare it number or integer or boolean"),
        ("flag", .json, "declare it number or integer or boolean"),
        ("id", .string, "declare it integer or number or boolean"),
        ("doc", .string, "over a json column: declare it json"),
    ])
    func aFieldOverAColumnOfAnotherTypeIsRefused(field: String, type: FieldType, hint: String) async throws {
        let store = try await Self.store()
        let fields = Self.fields([field: type])
        for (source, writable) in [
            (StoreSource(kind: .table("things"), fieldTypes: fields), true),
            (StoreSource(kind: .table("things"), fieldTypes: fields), false),
        ] {
            let definition = Self.definition(fields, writable: writable)
            let error = #expect(throws: StoreError.self) {
                _ = try store.adapter(for: definition, source: source, signer: CursorSigner(secret: SampleList.secret))
            }
            let message = error.map { "\($0)" } ?? ""
            #expect(message.contains("field '\(field)' (\(type.rawValue))") && message.contains(hint), "\(message)")
            // `check` refuses it as `serve` does.
            let problems = try store.rehearse([(definition, source)])
            #expect(problems.map { "\($0)" } == [message])
        }
    }

    @Test func fieldsThatFitTheirColumnsAreServedAndWritten() async throws {
        let store = try await Self.store()
        let fields = Self.fields([
            "count": .number, "amount": .integer, "word": .json, "anything": .integer, "stamp": .integer,
        ])
        let adapter = try store.adapter(
            for: Self.definition(fields, writable: true),
            source: StoreSource(kind: .table("things"), fieldTypes: fields),
            signer: CursorSigner(secret: SampleList.secret)
        )
        let data: JSONValue = .object([
            "word": .object(["a": .integer(1)]), "score": .number(1.5), "amount": .integer(12), "flag": .bool(true),
            "count": .integer(3), "label": .string("007"), "anything": .integer(5), "stamp": .integer(1_700_000_000),
            "doc": .object(["n": .integer(7)]),
        ])
        let written = try await adapter.replace(id: "1", body: .object(["data": data]))
        let shown = try #require(written.cell.data.objectValue)
        #expect(shown["word"] == .object(["a": .integer(1)]) && shown["amount"] == .integer(12))
        #expect(shown["flag"] == .bool(true) && shown["label"] == .string("007"))
        #expect([.integer(3), .number(3)].contains(shown["count"]) && shown["stamp"] == .integer(1_700_000_000))
        #expect(shown["doc"] == .object(["n": .integer(7)]))
    }
}

extension SQLiteFieldTypeTests {
    /// A `string` field over a DATETIME column (NUMERIC affinity) keeps times as text, but
    /// text that reads as a number SQLite keeps as that number: such a write, or an imported
    /// record, is refused naming the field, with nothing stored (probe 47: `"007"` was stored
    /// and shown as `7`, and a PUT of what a GET gave was then refused).
    @Test func textADateColumnWouldKeepAsANumberIsRefused() async throws {
        let store = try await Self.store()
        let fields = Self.fields([:])
        let source = StoreSource(kind: .table("things"), fieldTypes: fields)
        let definition = Self.definition(fields, writable: true)
        let adapter = try store.adapter(
            for: definition,
            source: source,
            signer: CursorSigner(secret: SampleList.secret)
        )
        let kept = try await adapter.replace(
            id: "1",
            body: .object(["data": .object(["stamp": .string("2026-11-19 10:00:00"), "word": .string("007")])])
        )
        #expect(kept.cell.data.objectValue?["stamp"] == .string("2026-11-19 10:00:00"))
        let start = try await adapter.currentVersion()
        for text in ["007", "2026", " 12 ", "1e3", "-0.5"] {
            let refused = await #expect(throws: DataMediatorError.self) {
                _ = try await adapter.patch(id: "1", body: .object(["data": .object(["stamp": .string(text)])]))
            }
            #expect(refused?.code == .invalidItem, "\(text): \(String(describing: refused))")
            #expect(refused?.fieldProblems.map(\.field) == ["stamp"], "\(text): \(String(describing: refused))")
            let created = await #expect(throws: DataMediatorError.self) {
                _ = try await adapter.create(body: .object(["data": .object(["stamp": .string(text)])]))
            }
            #expect(created?.fieldProblems.map(\.field) == ["stamp"], "\(text): \(String(describing: created))")
        }
        #expect(try await adapter.currentVersion() == start, "nothing was written")
        let shown = try await adapter.locate(id: "1", view: nil).item.data.objectValue
        #expect(shown?["stamp"] == .string("2026-11-19 10:00:00"))

        let provider = try store.provider(for: definition, source: source)
        let importer = try SQLImporter(reader: provider.reader, list: definition, source: source)
        let records = [
            ImportRecord(line: 1, fields: ["id": .integer(2), "stamp": .string("2026-11-20")]),
            ImportRecord(line: 2, fields: ["id": .integer(3), "stamp": .string("007")]),
            ImportRecord(line: 3, fields: ["id": .integer(4), "stamp": .string("x")]),
        ]
        let skipping = try await importer.run(records, skipBad: true, batch: 10)
        #expect(skipping.imported == 2 && skipping.rejections.map(\.line) == [2], "\(skipping.rejections)")
        #expect(
            skipping.rejections.first?.reason.hasPrefix("'stamp' its column keeps \"007\" as 7") == true,
            "\(skipping.rejections)"
        )
        let stopped = await #expect(throws: ImportStopped.self) {
            _ = try await importer.run(
                [ImportRecord(line: 1, fields: ["id": .integer(5), "stamp": .string("9")])],
                skipBad: false
            )
        }
        #expect(stopped != nil)
        let ids = try await adapter.page(view: nil, limit: "10", cursor: nil).items.map(\.id).sorted()
        #expect(ids == ["1", "2", "4"])
    }
}

extension SQLiteFieldTypeTests {
    /// A `STRICT` table's `ANY` column keeps every value as given: a `string` or `json`
    /// field over it is served, its text kept (probe 47: refused at start as over a NUMERIC
    /// column, which `ANY` is only in a table that is not `STRICT`).
    @Test func aStrictTablesAnyColumnTakesAnyField() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("dm-any-\(UUID()).sqlite").path
        try await DatabaseQueue(path: path).write { db in
            try db.execute(
                sql: """
                    CREATE TABLE things (id INTEGER PRIMARY KEY, word ANY, doc ANY, rev INTEGER NOT NULL DEFAULT 1) STRICT;
                    CREATE TABLE loose (id INTEGER PRIMARY KEY, word ANY, rev INTEGER NOT NULL DEFAULT 1);
                    """
            )
        }
        let store = try SQLiteStore(path: path)
        let fields: [String: FieldType] = ["id": .integer, "word": .string, "doc": .json]
        let adapter = try store.adapter(
            for: PostgresFieldTypeTests.definition(fields, writable: true, shown: ["word", "doc"]),
            source: StoreSource(kind: .table("things"), fieldTypes: fields),
            signer: CursorSigner(secret: SampleList.secret)
        )
        let data: JSONValue = .object(["word": .string("007"), "doc": .object(["a": .array([.integer(1)])])])
        let written = try await adapter.replace(id: "1", body: .object(["data": data]))
        #expect(written.cell.data == data)
        #expect(try await adapter.locate(id: "1", view: nil).item.data == data)
        // Not STRICT, an ANY column has NUMERIC affinity: a string field over it is refused.
        let loose: [String: FieldType] = ["id": .integer, "word": .string]
        let refused = #expect(throws: StoreError.self) {
            _ = try store.adapter(
                for: PostgresFieldTypeTests.definition(loose, writable: true, shown: ["word"]),
                source: StoreSource(kind: .table("loose"), fieldTypes: loose),
                signer: CursorSigner(secret: SampleList.secret)
            )
        }
        #expect("\(refused.map { "\($0)" } ?? "")".contains("field 'word' (string) is over an any column"))
    }
}
