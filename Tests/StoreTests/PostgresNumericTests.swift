import DataMediator
import DataMediatorSQL
import DataMediatorTesting
import Foundation
import PostgresNIO
import Testing

@testable import DataMediatorPostgres

/// `numeric` cells (a query list's SUM or AVG, a column of a table the service did not
/// create) become JSON as their digits say, whatever their size.
@Suite struct PostgresNumericTests {
    @Test func numericCellsKeepTheirValueAndNeverTrap() async throws {
        let fixture = try await PostgresFixture()
        let cases: [(String, JSONValue)] = [
            ("1e200", .number(1e200)), ("1e-130", .number(1e-130)), ("-1e170", .number(-1e170)),
            ("9007199254740993", .integer(9_007_199_254_740_993)), ("0.07", .number(0.07)),
            ("0.0000000001", .number(1e-10)), ("123.456", .number(123.456)), ("12.000", .integer(12)),
            ("-42", .integer(-42)), ("0", .integer(0)), ("99999999999999999999", .number(1e20)),
            // JSON holds none of these (a page shows null), but a cursor carries them.
            ("'NaN'", .number(.nan)), ("'Infinity'", .number(.infinity)), ("'-Infinity'", .number(-.infinity)),
            ("NULL", .null), ("1e400", .number(.infinity)),
        ]
        let sql = "SELECT " + cases.map { "CAST(\($0.0) AS numeric)" }.joined(separator: ", ")
        let rows = try await fixture.store.primary.query(PostgresQuery(unsafeSQL: sql))
        var decoded: [JSONValue] = []
        for try await row in rows {
            for cell in row { decoded.append(try JSONValue(cell)) }
        }
        #expect(decoded.count == cases.count)
        for ((literal, expected), value) in zip(cases, decoded) {
            #expect(value == expected, "\(literal)")
        }
    }
}

extension PostgresNumericTests {
    /// A JSON number's value.
    static func double(_ value: JSONValue) -> Double? {
        switch value {
        case .number(let real): return real
        case .integer(let whole): return Double(whole)
        default: return nil
        }
    }

    /// A number written into a `numeric` column is stored with every digit it has (the
    /// shortest decimal that is the double), so it reads back as written; PostgreSQL's own
    /// cast of a double to numeric keeps 15 significant digits (`123456789.12345679` was
    /// stored as `123456789.123457`).
    @Test func aNumberWrittenIntoANumericColumnReadsBackAsWritten() async throws {
        let fixture = try await PostgresFixture()
        try await fixture.store.primary.query(
            "CREATE TABLE prices (id bigint PRIMARY KEY, amount numeric, cents numeric(12, 2), rev bigint)"
        )
        let fields: [String: FieldType] = ["id": .integer, "amount": .number, "cents": .number]
        let definition = ListDefinition.byID(
            "prices",
            fields: fields.filter { $0.key != "id" },
            shown: ["amount", "cents"],
            cellType: "p"
        )
        let adapter = try await fixture.store.adapter(
            for: definition,
            source: StoreSource(kind: .table("prices"), fieldTypes: fields),
            signer: CursorSigner(secret: Array("test-secret-of-enough-length".utf8))
        )
        for (index, amount) in [123_456_789.123_456_79, 0.300_000_000_000_000_04, 1e300, -2.5e-300, 7.0].enumerated() {
            let written = try await adapter.replace(
                id: "\(index + 1)",
                body: .object([
                    "data": .object(["amount": .number(amount), "cents": .number(1.005)])
                ])
            )
            guard case .object(let data) = written.cell.data else { return }
            // (A whole number's JSON reads back as an integer.)
            #expect(data["amount"].map(Self.double) == amount, "\(amount)")
            // The column's scale rounds, as PostgreSQL rounds a numeric: 1.005 is 1.01 (the
            // double 1.005 is a little less; its shortest decimal is what is stored).
            #expect(data["cents"].map(Self.double) == 1.01, "\(amount)")
        }
        // Past the column's digits before the point: refused, naming the field (PostgreSQL's
        // "numeric field overflow" names none).
        // A number that the column's scale rounds up to that bound too (9999999999.995 is
        // 10000000000.00, past 10 digits; PostgreSQL's "numeric field overflow" named none).
        for cents in [1e10, 9_999_999_999.995, -9_999_999_999.995, 1e300] {
            let refused = await #expect(throws: DataMediatorError.self) {
                _ = try await adapter.replace(id: "9", body: .object(["data": .object(["cents": .number(cents)])]))
            }
            #expect(refused?.fieldProblems.map(\.field) == ["cents"], "\(cents): \(String(describing: refused))")
        }
        let kept = try await adapter.replace(
            id: "9",
            body: .object(["data": .object(["cents": .number(9_999_999_999.994)])])
        )
        #expect(kept.cell.data == .object(["amount": .null, "cents": .number(9_999_999_999.99)]))
    }
}

extension PostgresNumericTests {
    /// A view sorted by a `numeric` column pages by index ranges: a value compared with the
    /// column is bound as a `numeric` (through its text). Bound as PostgreSQL binds a
    /// double, the column was compared as a double (`(score)::double precision < $1`), which
    /// its index cannot bound: a page 100,000 rows deep read them all (the audit: 30 ms at
    /// depth 100, 180-450 ms past 100,000).
    @Test func aViewSortedByANumericColumnIsAnIndexRange() async throws {
        let fixture = try await PostgresFixture()
        try await fixture.store.primary.query(
            "CREATE TABLE scores (id bigint PRIMARY KEY, score numeric(12, 3) NOT NULL, rev bigint)"
        )
        try await fixture.store.primary.query(
            "INSERT INTO scores (id, score) SELECT g, (g % 997) / 7.0 FROM generate_series(1, 3000) AS g"
        )
        let fields: [String: FieldType] = ["id": .integer, "score": .number]
        let view = View(
            name: "by_score",
            sort: [SortKey("score", .descending)],
            idField: "id",
            cellType: .fixed("s"),
            fields: ["score"]
        )
        let definition = ListDefinition(name: "scores", title: "Scores", idField: "id", views: [view])
        let source = StoreSource(kind: .table("scores"), fieldTypes: fields)
        let keyset = try await fixture.store.provider(for: definition, source: source).reader.keyset
        // The range after a position, with the values bound as PostgreSQL binds them.
        let range = try #require(keyset.segments(nulls: [false, false], in: view, inclusive: false).first)
        var sql = range.sql
        for value in ["CAST(70.5 AS double precision)", "CAST(12 AS bigint)"] {
            sql = sql.replacingOccurrences(of: "?", with: value, options: [], range: sql.range(of: "?"))
        }
        let plan = try await fixture.plan("SELECT id FROM scores WHERE \(sql) ORDER BY score DESC, id DESC LIMIT 5")
        #expect(plan.contains("Index Cond"), "\(plan)")
        #expect(!plan.contains("double precision) <"), "\(plan)")
        // And it walks.
        let adapter = try await fixture.store.adapter(
            for: definition,
            source: source,
            signer: CursorSigner(secret: SampleList.secret)
        )
        var check = try await SampleList.walk(adapter, view: "by_score", limit: 250)
        let expected: [Int] = (1...3000).sorted { left, right in
            left % 997 == right % 997 ? left > right : left % 997 > right % 997
        }
        check.expectOrder(expected.map(String.init))
        #expect(check.violations == [])
    }
}
