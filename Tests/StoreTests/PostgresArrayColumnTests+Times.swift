import DataMediator
import DataMediatorPostgres
import DataMediatorSQL
import DataMediatorTesting
import Foundation
import PostgresNIO
import Testing

extension PostgresArrayColumnTests {
    static let timeFields: [String: FieldType] = ["days": .json, "stamps": .json, "opens": .json]

    static let timeDefinition = ListDefinition.byID(
        "shifts",
        fields: timeFields,
        shown: ["days", "stamps", "opens"],
        cellType: "shift"
    )

    /// An array of times shows each element as a time column of its kind shows it (UTC with
    /// `Z`, the column's fractional digits), and a write checks each as such a column does
    /// (probe 46: the elements were PostgreSQL's JSON text, `2019-12-31T22:00:00+00:00` and
    /// `0044-03-15 BC`, and a year outside 1 to 9999 was stored).
    @Test func anArrayOfTimesShowsAndChecksEachAsATimeColumn() async throws {
        let fixture = try await PostgresFixture()
        for statement in [
            "CREATE TABLE shifts (id bigserial PRIMARY KEY, days date[], stamps timestamptz(3)[], opens time[], rev bigint)",
            """
            INSERT INTO shifts (days, stamps, opens) VALUES
                (ARRAY['2026-11-19', NULL, 'infinity']::date[],
                 ARRAY['2026-11-19 21:04+02', '2019-12-31 23:00:00.5-01']::timestamptz[], ARRAY['08:30', '24:00']::time[]),
                ('{}', NULL, '{{08:00},{09:00}}')
            """,
        ] {
            try await fixture.store.primary.query(PostgresQuery(unsafeSQL: statement))
        }
        let adapter = try await fixture.store.adapter(
            for: Self.timeDefinition,
            source: StoreSource(kind: .table("shifts"), fieldTypes: Self.timeFields),
            signer: CursorSigner(secret: SampleList.secret)
        )
        let read = try await Self.data(adapter)
        #expect(
            read == [
                .object([
                    "days": .array([.string("2026-11-19"), .null, .string("infinity")]),
                    "stamps": .array([.string("2026-11-19T19:04:00.000Z"), .string("2020-01-01T00:00:00.500Z")]),
                    "opens": .array([.string("08:30:00"), .string("24:00:00")]),
                ]),
                // An array of two dimensions is a JSON array of its rows, each time shown as in one.
                .object([
                    "days": .array([]), "stamps": .null,
                    "opens": .array([.array([.string("08:00:00")]), .array([.string("09:00:00")])]),
                ]),
            ]
        )
        let created = try await adapter.create(
            body: .object([
                "data": .object([
                    "days": .array([.string("2026-11-20"), .null]),
                    "stamps": .array([.string("2026-11-19T21:04:00.1234+02:00")]),
                    "opens": .array([.string("12:00+02"), .string("24:00:00")]),
                ])
            ])
        )
        let shown = JSONValue.object([
            "days": .array([.string("2026-11-20"), .null]), "stamps": .array([.string("2026-11-19T19:04:00.123Z")]),
            "opens": .array([.string("10:00:00"), .string("24:00:00")]),
        ])
        #expect(created.cell.data == shown)
        // What a read gave, written back, is what it was.
        let again = try await adapter.replace(id: "1", body: .object(["data": read[0]]))
        #expect(again.cell.data == read[0])

        let start = try await adapter.currentVersion()
        // Each refused naming its field, and the element's place in its array.
        let day = JSONValue.string("2026-01-01")
        for (field, value, place) in [
            ("days", JSONValue.array([day, .string("0044-03-15 BC")]), "1"),
            ("days", .array([.string("10000-01-01"), day]), "0"),
            ("stamps", .array([day, .string("0001-01-01T00:30:00+01")]), "1"),
            ("days", .array([.array([day, day]), .array([day, .string("10000-01-01")])]), "1, 1"),
            ("stamps", .array([.array([.string("0001-01-01T00:30:00+01")]), .array([day])]), "0, 0"),
        ] {
            let refused = await #expect(throws: DataMediatorError.self) {
                _ = try await adapter.patch(id: created.cell.id, body: .object(["data": .object([field: value])]))
            }
            #expect(refused?.code == .invalidItem, "\(field) \(value): \(String(describing: refused))")
            #expect(refused?.fieldProblems.map(\.field) == [field], "\(field) \(value): \(String(describing: refused))")
            #expect(
                refused?.message.contains("(at index \(place)) is outside the years 1 to 9999") == true,
                "\(String(describing: refused))"
            )
        }
        #expect(try await adapter.currentVersion() == start, "nothing was written")
        #expect(try await adapter.locate(id: created.cell.id, view: nil).item.data == shown)
    }
}
