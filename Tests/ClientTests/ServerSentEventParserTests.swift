import DataMediatorClient
import Testing

@Suite struct ServerSentEventParserTests {
    @Test func fieldsMultiLineDataAndIdsDispatchOnABlankLine() {
        var parser = ServerSentEventParser()
        let events = parser.feed(
            Array("retry: 2000\n: a comment\n\nid: 7\nevent: insert\ndata: {\"a\":\ndata:1}\n\ndata: plain\n\n".utf8)
        )
        #expect(
            events == [
                ServerSentEvent(type: "insert", data: "{\"a\":\n1}", id: "7", retry: 2000),
                ServerSentEvent(type: "message", data: "plain", id: "7", retry: 2000),
            ]
        )
        #expect(parser.retry == 2000)
        #expect(parser.comments == 1)
        #expect(parser.lastEventID == "7")
    }

    /// A line, or an event's data with the line being read, may hold the bound and not a
    /// byte more: past it nothing more is read (a stream of one endless line).
    @Test func aLineOrAnEventOverTheBoundEndsTheStream() {
        // "data: " is 6 bytes: a line of 16 is the bound.
        var atBound = ServerSentEventParser(maximumEventBytes: 16)
        #expect(atBound.feed(Array("data: 0123456789\n\n".utf8)).map(\.data) == ["0123456789"])
        #expect(!atBound.overflowed)
        var over = ServerSentEventParser(maximumEventBytes: 16)
        #expect(over.feed(Array("data: 0123456789A\n\ndata: next\n\n".utf8)).isEmpty)
        #expect(over.overflowed)
        // The event's data so far counts: 5 bytes held, then a line of 12 passes 16.
        var event = ServerSentEventParser(maximumEventBytes: 16)
        #expect(event.feed(Array("data: 0123\ndata: 456789\n\n".utf8)).isEmpty)
        #expect(event.overflowed)
    }

    @Test func linesEndWithCRLFOrCROrLFEvenWhenAChunkEndsBetweenCRAndLF() {
        let stream = Array("id: 1\r\ndata: a\r\n\r\nid: 2\rdata: b\r\rid: 3\ndata: c\n\n".utf8)
        for split in 0...stream.count {
            var parser = ServerSentEventParser()
            let events = parser.feed(stream[..<split]) + parser.feed(stream[split...])
            #expect(events.map(\.data) == ["a", "b", "c"], "split at \(split)")
            #expect(events.map(\.id) == ["1", "2", "3"], "split at \(split)")
        }
    }

    @Test func anEventWithoutDataIsNotDispatchedAndItsTypeIsForgotten() {
        var parser = ServerSentEventParser()
        let events = parser.feed(Array("event: reload\nid: 9\n\ndata\n\n".utf8))
        #expect(events == [ServerSentEvent(type: "message", data: "", id: "9")])
    }

    @Test func badRetryAnIdWithNULAndUnknownFieldsAreIgnoredAndALeadingBOMSkipped() {
        var parser = ServerSentEventParser()
        let events = parser.feed(
            Array("\u{FEFF}retry: 1x\nid: 4\nid: a\u{0}b\nfoo: bar\ndata:  two spaces\n\n".utf8)
        )
        #expect(parser.retry == nil)
        #expect(events == [ServerSentEvent(type: "message", data: " two spaces", id: "4")])
    }

    /// The standard splits a line into code points: a combining mark after the colon or
    /// the space is part of the value (as characters, `:\u{301}` is one, and the field was
    /// not found).
    @Test func aCombiningMarkAfterTheColonOrTheSpaceStaysInTheValue() {
        var parser = ServerSentEventParser()
        let events = parser.feed(Array("id:\u{301}1\ndata:\u{301}x\ndata: \u{301}y\n\n:\u{301} comment\n".utf8))
        #expect(events == [ServerSentEvent(type: "message", data: "\u{301}x\n\u{301}y", id: "\u{301}1")])
        #expect(parser.comments == 1)
    }

    @Test func anUnfinishedEventAtTheEndOfTheBytesIsHeldUntilItsBlankLine() {
        var parser = ServerSentEventParser()
        #expect(parser.feed(Array("id: 5\nevent: delete\ndata: {}\n".utf8)).isEmpty)
        #expect(parser.feed(Array("\n".utf8)) == [ServerSentEvent(type: "delete", data: "{}", id: "5")])
    }
}
