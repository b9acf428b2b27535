import DataMediator
import Foundation
import Testing

/// The JSON the service writes is valid JSON that reads back to the same values.
@Suite struct JSONWriterTests {
    @Test func everyValueRoundTripsThroughAStandardParser() throws {
        let value = JSONValue.object([
            "text": .string("quote \" backslash \\ newline \n tab \t nul \u{0} bell \u{7} del \u{7F} é 😀"),
            "integer": .integer(Int64.min),
            "number": .number(-0.000_001_5),
            "flags": .array([.bool(true), .bool(false), .null]),
            "nested": .object(["z": .integer(1), "a": .array([])]),
        ])
        var writer = JSONWriter()
        writer.write(value)
        #expect(try JSONValue.parse(writer.bytes) == value)
        #expect(try JSONSerialization.jsonObject(with: Data(writer.bytes)) is [String: Any])
    }

    @Test func objectKeysAreWrittenInSortedOrder() {
        var writer = JSONWriter()
        writer.write(JSONValue.object(["b": .integer(2), "a": .integer(1), "c": .null]))
        #expect(writer.string == #"{"a":1,"b":2,"c":null}"#)
    }

    @Test func numbersJSONCannotHoldBecomeNull() {
        var writer = JSONWriter()
        writer.write(JSONValue.array([.number(.infinity), .number(.nan)]))
        #expect(writer.string == "[null,null]")
    }

    @Test func valuesOrderAsSQLiteOrdersThem() {
        let ordered: [JSONValue] = [
            .null, .integer(-3), .number(-2.5), .bool(false), .integer(1), .number(1.5), .string("B"), .string("a"),
            .string("é"),
        ]
        #expect(ordered.shuffled().sorted() == ordered)
    }
}
