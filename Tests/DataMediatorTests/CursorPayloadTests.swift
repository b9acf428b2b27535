import Testing

@testable import DataMediator

/// The cursor's binary payload and base64url: exact round trips, and nothing but `nil`
/// from bytes that are not a payload.
@Suite struct CursorPayloadTests {
    @Test func everyCursorRoundTrips() {
        let values: [JSONValue] = [
            .null, .bool(false), .bool(true), .integer(0), .integer(-1), .integer(.max), .integer(.min),
            .number(-0.0), .number(1e300), .string(""), .string("é/😀\u{0}"), .array([.integer(1)]),
            .object(["a": .null]),
        ]
        for inclusive in [false, true] {
            for backward in [false, true] {
                for version in [nil, 0, 1_532, Int64.max] {
                    let cursor = Cursor(
                        list: "l",
                        view: "v",
                        position: Position(values),
                        inclusive: inclusive,
                        backward: backward,
                        version: version
                    )
                    #expect(CursorPayload.decode(CursorPayload.encode(cursor)) == cursor)
                }
            }
        }
    }

    /// Cursors issued before pages read what precedes them held the section a page
    /// continued (bit 1, a string after the view) and whether it started the view (bit 3):
    /// clients keep such cursors across upgrades, and they still lead to the same place.
    @Test func cursorsIssuedBeforeStillDecode() throws {
        // The payload of a token the previous format issued (CursorTests' documented one):
        // inclusive, continuing "s/1", in list "l" and view binding "wide".
        let earlier = try #require(
            Base64URL.decode("AQMBbAR3aWRlA3MvMQYAAgOBgICAgICAIASas-bMmbPm3D8FDGEuYi9jIMOpICJxIgUEaWQtMQ"[...])
        )
        let position = Position([
            .null, .bool(true), .integer(-9_007_199_254_740_993), .number(0.1), .string("a.b/c é \"q\""),
            .string("id-1"),
        ])
        #expect(
            CursorPayload.decode(earlier) == Cursor(list: "l", view: "wide", position: position, inclusive: true)
        )
        // A located item's cursor at the view's start (bit 3) and one continuing a section.
        let cursor = Cursor(list: "l", view: "v", position: Position([.integer(5)]), inclusive: true)
        var startsView = CursorPayload.encode(cursor)
        startsView[1] |= 8
        #expect(CursorPayload.decode(startsView) == cursor)
        var continuing = CursorPayload.encode(cursor)
        continuing[1] |= 2
        continuing.insert(contentsOf: [3] + Array("day".utf8), at: 6)
        #expect(CursorPayload.decode(continuing) == cursor)
        // Bits no format had are refused, and so is a version bit with no version after the
        // position, or one past the largest version.
        var unknown = CursorPayload.encode(cursor)
        unknown[1] |= 32
        #expect(CursorPayload.decode(unknown) == nil)
        var noVersion = CursorPayload.encode(cursor)
        noVersion[1] |= 16
        #expect(CursorPayload.decode(noVersion) == nil)
        #expect(CursorPayload.decode(noVersion + [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01]) == nil)
        #expect(
            CursorPayload.decode(noVersion + [0x05])
                == Cursor(list: "l", view: "v", position: Position([.integer(5)]), inclusive: true, version: 5)
        )
    }

    @Test func truncatedExtendedOrRandomBytesDecodeToNothing() {
        let cursor = Cursor(
            list: "list",
            view: "view",
            position: Position([.integer(5), .string("x")]),
            inclusive: false
        )
        let bytes = CursorPayload.encode(cursor)
        for length in 0..<bytes.count {
            #expect(CursorPayload.decode(Array(bytes.prefix(length))) == nil)
        }
        #expect(CursorPayload.decode(bytes + [0]) == nil)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let random = (0..<Int.random(in: 0...40, using: &generator)).map { _ in
                UInt8.random(in: 0...255, using: &generator)
            }
            _ = CursorPayload.decode(random)
            _ = CursorPayload.decode([1, 0] + random)
        }
    }

    @Test func base64URLRoundTripsAndRefusesNonCanonicalText() {
        for length in 0..<40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            var encoded: [UInt8] = []
            bytes.withUnsafeBytes { Base64URL.append($0, to: &encoded) }
            #expect(encoded.count == Base64URL.encodedCount(length))
            let text = String(decoding: encoded, as: UTF8.self)
            #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
            if length > 0 { #expect(Base64URL.decode(text[...]) == bytes) }
        }
        // "AB" and "AA" both carry the byte 0 when trailing bits are ignored; only "AA" is canonical.
        #expect(Base64URL.decode("AA") == [0])
        #expect(Base64URL.decode("AB") == nil)
        #expect(Base64URL.decode("A") == nil)
        #expect(Base64URL.decode("A=") == nil)
        #expect(Base64URL.decode("") == nil)
    }
}
