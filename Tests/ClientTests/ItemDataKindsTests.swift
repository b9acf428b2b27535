import DataMediatorClient
import Foundation
import Testing

/// `ItemData`'s `Decodable` tries the kinds in the order most values are (strings, whole
/// numbers, objects first): every kind still comes back as itself.
@Suite struct ItemDataKindsTests {
    @Test func everyKindDecodesAsItself() throws {
        let text = #"""
            {"s": "1", "t": "true", "i": 42, "d": 1.5, "b": true, "n": null,
             "a": [1, "x", [false], {}], "o": {"inner": {"x": null}}}
            """#
        let value = try JSONDecoder().decode(ItemData.self, from: Data(text.utf8))
        #expect(
            value
                == .object([
                    "s": .string("1"), "t": .string("true"), "i": .integer(42), "d": .double(1.5), "b": .bool(true),
                    "n": .null, "a": .array([.integer(1), .string("x"), .array([.bool(false)]), .object([:])]),
                    "o": .object(["inner": .object(["x": .null])]),
                ])
        )
        for (json, expected) in [
            ("\"x\"", ItemData.string("x")), ("7", .integer(7)), ("7.25", .double(7.25)), ("false", .bool(false)),
            ("null", .null), ("[]", .array([])), ("{}", .object([:])),
        ] {
            #expect(try JSONDecoder().decode(ItemData.self, from: Data(json.utf8)) == expected, "\(json)")
        }
    }
}
