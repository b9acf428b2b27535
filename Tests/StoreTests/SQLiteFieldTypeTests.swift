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
        ("count", .string, "over a int column: declare it integer or number or boolean"),
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
