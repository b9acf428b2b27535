import DataMediator
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
            ("'NaN'", .null), ("'Infinity'", .null), ("'-Infinity'", .null), ("NULL", .null),
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
