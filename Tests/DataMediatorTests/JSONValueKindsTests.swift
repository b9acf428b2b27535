import DataMediator
import Foundation
import Testing

/// `JSONValue`'s `Decodable` tries the kinds in the order most values are (strings, whole
/// numbers, objects first): every kind still comes back as itself.
@Suite struct JSONValueKindsTests {
    @Test func everyKindDecodesAsItself() throws {
        let text = #"""
            {"s": "1", "t": "true", "i": 42, "big": -9223372036854775808, "d": 1.5,
             "b": true, "f": false, "n": null, "a": [1, "x", [true], {}], "o": {"inner": {"x": null}}, "empty": ""}
            """#
        let value = try JSONValue.parse(Array(text.utf8))
        let members = try #require(value.objectValue)
        #expect(members["s"] == .string("1"))
        #expect(members["t"] == .string("true"))
        #expect(members["i"] == .integer(42))
        #expect(members["big"] == .integer(.min))
        #expect(members["d"] == .number(1.5))
        #expect(members["b"] == .bool(true))
        #expect(members["f"] == .bool(false))
        #expect(members["n"] == .null)
        #expect(members["a"] == .array([.integer(1), .string("x"), .array([.bool(true)]), .object([:])]))
        #expect(members["o"] == .object(["inner": .object(["x": .null])]))
        #expect(members["empty"] == .string(""))
        // Top-level values of every kind.
        for (json, expected) in [
            ("\"x\"", JSONValue.string("x")), ("7", .integer(7)), ("7.25", .number(7.25)), ("false", .bool(false)),
            ("null", .null), ("[]", .array([])), ("{}", .object([:])),
        ] {
            #expect(try JSONValue.parse(Array(json.utf8)) == expected, "\(json)")
        }
    }

    /// NaN (a PostgreSQL `real` or `numeric` may hold it) is itself, in a position's
    /// dictionary key too, and sorts after every other number, as PostgreSQL sorts it.
    @Test func nanEqualsItselfAndSortsAfterEveryNumber() {
        let nan = JSONValue.number(.nan)
        #expect(nan == .number(.nan))
        #expect([Position([nan, .string("1")]): 1][Position([.number(.nan), .string("1")])] == 1)
        let values: [JSONValue] = [nan, .number(.infinity), .integer(3), .null, .number(-.infinity), .string("a")]
        #expect(
            values.sorted() == [.null, .number(-.infinity), .integer(3), .number(.infinity), nan, .string("a")]
        )
        #expect(JSONValue.compare(nan, nan) == 0 && JSONValue.compare(.integer(1), nan) < 0)
    }
}
