import DataMediator
import Testing

@Suite struct PathSegmentTests {
    @Test func encodingKeepsUnreservedBytesAndDecodingUndoesIt() {
        let samples = ["plain", "a b/c?d#e%f", "día/ñ", "emoji 👋", "", "~._-", "100%", "+&="]
        for text in samples {
            let encoded = PathSegment.encode(text)
            #expect(encoded.utf8.allSatisfy { $0 < 0x80 && $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: " ") })
            #expect(PathSegment.decode(encoded) == text, "\(text) -> \(encoded)")
        }
        #expect(PathSegment.encode("a b/é") == "a%20b%2F%C3%A9")
    }

    @Test func decodingTakesEitherCaseOfHexAndRefusesBrokenEscapesAndBytes() {
        #expect(PathSegment.decode("a%2fb%2Fc") == "a/b/c")
        #expect(PathSegment.decode("caf%C3%A9") == "café")
        #expect(PathSegment.decode("no-escapes+here") == "no-escapes+here")
        for broken in ["%", "%4", "a%zz", "%%41", "%C3%28", "%FF", "%C3"] {
            #expect(PathSegment.decode(broken) == nil, "\(broken)")
        }
    }
}
