import DataMediator
import DataMediatorPostgres
import DataMediatorSQL
import DataMediatorTesting
import PostgresNIO
import Testing

/// Array columns whose element type bounds its values (`varchar(3)[]`, `smallint[]`,
/// `numeric(4, 1)[]`, `uuid[]`): an element out of bounds is refused before the statement,
/// naming the field, the element's index and the column's type (PostgreSQL's own error
/// names neither field nor element, so the refusal named `data`), with nothing stored.
@Suite struct PostgresArrayElementTests {
    static let fields: [String: FieldType] = ["codes": .json, "small": .json, "prices": .json, "keys": .json]

    static let definition = ListDefinition.byID(
        "bounded",
        fields: fields,
        shown: ["codes", "small", "prices", "keys"],
        cellType: "row"
    )

    @Test func anElementOutOfItsTypesBoundsIsRefusedNamingItsField() async throws {
        let fixture = try await PostgresFixture()
        try await fixture.store.primary.query(
            """
            CREATE TABLE bounded (id bigserial PRIMARY KEY, codes varchar(3)[], small smallint[],
                prices numeric(4, 1)[], keys uuid[], rev bigint)
            """
        )
        let adapter = try await fixture.store.adapter(
            for: Self.definition,
            source: StoreSource(kind: .table("bounded"), fieldTypes: Self.fields),
            signer: CursorSigner(secret: SampleList.secret)
        )
        let fine: [String: JSONValue] = [
            "codes": .array([.string("abc"), .null]), "small": .array([.integer(32_767)]),
            "prices": .array([.number(999.9)]), "keys": .array([.string("0b9e2b8e-4f64-4d8c-9a55-1c2a3b4c5d6e")]),
        ]
        let created = try await adapter.create(body: JSONValue.object(["data": .object(fine)]))
        #expect(created.cell.data == JSONValue.object(fine))
        let start = try await adapter.currentVersion()
        for (field, value, says) in [
            (
                "codes", JSONValue.array([.string("ok"), .string("long")]),
                "at index 1) that must be at most 3 characters (its column is varchar(3)[])"
            ),
            (
                "small", .array([.integer(1), .integer(-40_000)]),
                "at index 1) that must be from -32768 to 32767 (its column is smallint[])"
            ),
            (
                "prices", .array([.number(1_000)]),
                "at index 0) that must be less than 1e3 in size (its column is numeric(4, 1)[])"
            ),
            (
                "keys", .array([.string("0B9E2B8E-4F64-4D8C-9A55-1C2A3B4C5D6E")]),
                "at index 0) that must be a uuid in small letters"
            ),
        ] as [(String, JSONValue, String)] {
            let refused = await #expect(throws: DataMediatorError.self) {
                _ = try await adapter.patch(id: created.cell.id, body: .object(["data": .object([field: value])]))
            }
            #expect(refused?.code == .invalidItem, "\(field): \(String(describing: refused))")
            #expect(refused?.fieldProblems.map(\.field) == [field], "\(field): \(String(describing: refused))")
            #expect(refused?.message.contains(says) == true, "\(field): \(String(describing: refused?.message))")
        }
        // Several such values: each field is named, with why.
        let several = await #expect(throws: DataMediatorError.self) {
            _ = try await adapter.create(
                body: .object([
                    "data": .object(["codes": .array([.string("long")]), "small": .array([.integer(40_000)])])
                ])
            )
        }
        #expect(several?.fieldProblems.map(\.field) == ["codes", "small"], "\(String(describing: several))")
        #expect(several?.fieldProblems.last?.detail.contains("smallint[]") == true)
        #expect(try await adapter.currentVersion() == start, "nothing was written")
    }
}
