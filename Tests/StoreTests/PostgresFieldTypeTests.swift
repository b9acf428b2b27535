import DataMediator
import DataMediatorPostgres
import DataMediatorSQL
import DataMediatorTesting
import Foundation
import PostgresNIO
import Testing

/// A declared field over a PostgreSQL column of another type is refused at start: a
/// `text` column under an `integer` field showed `"x"` where a number is promised, and
/// a string field over a `bigint` column took no write. The pairs that fit (whole numbers
/// as numbers, a `numeric` as either, json over the text the service makes) are served.
@Suite struct PostgresFieldTypeTests {
    static let table = """
        CREATE TABLE things (id bigint PRIMARY KEY, word text, score double precision, amount numeric(12, 2),
            flag boolean, count integer, key uuid, rev bigint)
        """

    /// The list `things` of `fields`, its one view showing `shown` (the SQLite suite's too).
    static func definition(
        _ fields: [String: FieldType],
        writable: Bool,
        shown: [String] = ["word", "score", "amount", "flag", "count", "key"]
    ) -> ListDefinition {
        ListDefinition(
            name: "things",
            title: "Things",
            idField: "id",
            revisionField: writable ? "rev" : nil,
            views: [
                View(
                    name: "by_id",
                    sort: [SortKey("id")],
                    idField: "id",
                    cellType: .fixed("thing"),
                    fields: shown
                )
            ],
            isWritable: writable,
            rules: FieldRules(types: fields.filter { $0.key != "id" })
        )
    }

    static func fields(_ changes: [String: FieldType]) -> [String: FieldType] {
        let fitting: [String: FieldType] = [
            "id": .integer, "word": .string, "score": .number, "amount": .number, "flag": .boolean,
            "count": .integer, "key": .string,
        ]
        return fitting.merging(changes) { _, changed in changed }
    }

    @Test(arguments: [
        ("word", FieldType.integer, "declare it string or json"),
        ("word", .boolean, "declare it string or json"),
        ("score", .integer, "declare it number"),
        ("score", .string, "declare it number"),
        ("flag", .integer, "declare it boolean"),
        ("count", .string, "declare it integer or number"),
        ("count", .boolean, "declare it integer or number"),
        ("amount", .string, "declare it number or integer"),
        ("key", .json, "declare it string"),
        ("id", .string, "declare it integer or number"),
    ])
    func aFieldOverAColumnOfAnotherTypeIsRefused(field: String, type: FieldType, hint: String) async throws {
        let fixture = try await PostgresFixture()
        try await fixture.store.primary.query(PostgresQuery(unsafeSQL: Self.table))
        let fields = Self.fields([field: type])
        for (source, writable) in [
            (StoreSource(kind: .table("things"), fieldTypes: fields), true),
            (StoreSource(kind: .query("SELECT * FROM things"), fieldTypes: fields), false),
        ] {
            let error = await #expect(throws: StoreError.self) {
                _ = try await fixture.store.adapter(
                    for: Self.definition(fields, writable: writable),
                    source: source,
                    signer: CursorSigner(secret: SampleList.secret)
                )
            }
            let message = error.map { "\($0)" } ?? ""
            #expect(message.contains("field '\(field)' (\(type.rawValue))") && message.contains(hint), "\(message)")
        }
    }

    @Test func fieldsThatFitTheirColumnsAreServedAndWritten() async throws {
        let fixture = try await PostgresFixture()
        try await fixture.store.primary.query(PostgresQuery(unsafeSQL: Self.table))
        // A whole number shown as a number, a numeric as an integer, JSON text in a text column.
        let fields = Self.fields(["count": .number, "amount": .integer, "word": .json])
        let adapter = try await fixture.store.adapter(
            for: Self.definition(fields, writable: true),
            source: StoreSource(kind: .table("things"), fieldTypes: fields),
            signer: CursorSigner(secret: SampleList.secret)
        )
        let data: JSONValue = .object([
            "word": .object(["a": .integer(1)]), "score": .number(1.5), "amount": .integer(12), "flag": .bool(true),
            "count": .integer(3), "key": .string("6f1c1d9a-0000-4000-8000-000000000001"),
        ])
        let written = try await adapter.replace(id: "1", body: .object(["data": data]))
        #expect(written.cell.data.objectValue?["word"] == .object(["a": .integer(1)]))
        #expect([.integer(3), .number(3)].contains(written.cell.data.objectValue?["count"]))
        #expect(written.cell.data.objectValue?["amount"] == .integer(12))
    }
}
