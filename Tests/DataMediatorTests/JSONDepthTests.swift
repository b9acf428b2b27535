import DataMediator
import Testing

/// Request bodies nested deeper than the documented depth are refused before decoding;
/// brackets inside strings do not count.
@Suite struct JSONDepthTests {
    static func nested(_ depth: Int) -> [UInt8] {
        Array((String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).utf8)
    }

    @Test func nestingUpToTheLimitParsesAndDeeperIsRefused() throws {
        let limit = JSONValue.maximumDepth
        _ = try JSONValue.parse(Self.nested(limit), maximumDepth: limit)
        let error = #expect(throws: JSONValue.TooDeep.self) {
            _ = try JSONValue.parse(Self.nested(limit + 1), maximumDepth: limit)
        }
        #expect(error?.depth == limit + 1 && error?.limit == limit)
        // A hundred thousand levels are refused as quickly, without recursion.
        #expect(throws: JSONValue.TooDeep.self) { _ = try JSONValue.parse(Self.nested(100_000), maximumDepth: limit) }
    }

    @Test func bracketsInStringsAndEscapedQuotesDoNotCount() throws {
        let text = #"{"a": "[[[[[[[[[[\"{{{{{{{{{{", "b": [{"c": "]]]]"}]}"#
        let value = try JSONValue.parse(Array(text.utf8), maximumDepth: 3)
        guard case .object(let members) = value else {
            Issue.record("not an object: \(value)")
            return
        }
        #expect(members["a"] == .string(#"[[[[[[[[[["{{{{{{{{{{"#))
        #expect(throws: JSONValue.TooDeep.self) { _ = try JSONValue.parse(Array(text.utf8), maximumDepth: 2) }
    }
}
