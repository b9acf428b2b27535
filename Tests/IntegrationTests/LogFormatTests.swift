import DataMediator
import DataMediatorHTTP
import Foundation
import Logging
import Testing

@testable import data_mediator

@Suite struct LogFormatTests {
    @Test func aRecordIsOneJSONLineWithItsMetadataAsMembers() throws {
        let line = LogFormat.json.line(
            milliseconds: 1_795_129_200_250,
            level: .warning,
            label: "data-mediator",
            message: "a \"quoted\"\nmessage",
            sortedFields: [("count", .stringConvertible(3)), ("nested", ["a": ["1", "2"]]), ("request_id", "r-1")]
        )
        #expect(line.last == UInt8(ascii: "\n") && line.dropLast().allSatisfy { $0 != UInt8(ascii: "\n") })
        let record = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
        #expect(record["time"] as? String == "2026-11-19T23:00:00.250Z")
        #expect(record["level"] as? String == "warning" && record["logger"] as? String == "data-mediator")
        #expect(record["message"] as? String == "a \"quoted\"\nmessage")
        #expect(record["request_id"] as? String == "r-1" && record["count"] as? String == "3")
        #expect((record["nested"] as? [String: [String]]) == ["a": ["1", "2"]])
    }
}

@Suite struct LogLineTests {
    @Test func timesAreISO8601InUTCWithMilliseconds() {
        // Leap days, century rules, the epoch, before it, and far ahead.
        let expected: [Int64: String] = [
            0: "1970-01-01T00:00:00.000Z",
            999: "1970-01-01T00:00:00.999Z",
            -1: "1969-12-31T23:59:59.999Z",
            -86_400_001: "1969-12-30T23:59:59.999Z",
            951_782_400_000: "2000-02-29T00:00:00.000Z",
            951_868_799_999: "2000-02-29T23:59:59.999Z",
            4_107_542_400_123: "2100-03-01T00:00:00.123Z",
            1_795_129_200_250: "2026-11-19T23:00:00.250Z",
            253_402_300_799_999: "9999-12-31T23:59:59.999Z",
            -2_208_988_800_000: "1900-01-01T00:00:00.000Z",
        ]
        for (milliseconds, text) in expected {
            #expect(UTCTimestamp.text(milliseconds: milliseconds, fraction: true) == text)
        }
        // The demo's timestamps: whole seconds, no fraction.
        #expect(UTCTimestamp.text(milliseconds: 1_795_129_200_999, fraction: false) == "2026-11-19T23:00:00Z")
        // Whole seconds as Foundation writes them, over a spread of moments.
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)
        for seconds in stride(from: Int64(-5_000_000_000), through: 250_000_000_000, by: 7_777_777_777) {
            let text = UTCTimestamp.text(milliseconds: seconds * 1000, fraction: true)
            #expect(text == Date(timeIntervalSince1970: Double(seconds)).formatted(style), "\(seconds)")
        }
    }

    @Test func aTextLineHasTimeLevelLoggerMessageAndSortedMetadata() {
        let line = LogFormat.text.line(
            milliseconds: 1_795_129_200_250,
            level: .info,
            label: "data-mediator",
            message: "request",
            sortedFields: [("method", "GET"), ("request_id", .stringConvertible(7)), ("status", "200")]
        )
        #expect(
            String(decoding: line, as: UTF8.self)
                == "2026-11-19T23:00:00.250Z info data-mediator: request method=GET request_id=7 status=200\n"
        )
    }

    /// A text line is one line a logfmt reader splits right: a value holding a blank, `=`
    /// or `"` is quoted, control characters are escaped in values and in the message (a
    /// statement logged at `trace` split one record over many lines; review 94 #7).
    @Test func aTextLineQuotesAndEscapesWhatWouldSplitIt() {
        let line = LogFormat.text.line(
            milliseconds: 1_795_129_200_250,
            level: .warning,
            label: "data-mediator",
            message: "SELECT 1\nFROM t",
            sortedFields: [
                ("a", ""), ("path", "/lists/x"), ("quote", #"say "hi"\"#), ("why", "20 connections, each one busy"),
                ("x", "k=v\r\n\u{1B}[31m"),
            ]
        )
        #expect(
            String(decoding: line, as: UTF8.self)
                == #"2026-11-19T23:00:00.250Z warning data-mediator: SELECT 1\nFROM t a="" path=/lists/x "#
                + #"quote="say \"hi\"\\" why="20 connections, each one busy" x="k=v\r\n\u001B[31m""# + "\n"
        )
    }
}

@Suite struct LineLogHandlerTests {
    private func event(_ metadata: Logger.Metadata?) -> LogEvent {
        LogEvent(
            level: .info,
            message: "request",
            metadata: metadata,
            source: nil,
            file: #fileID,
            function: #function,
            line: #line
        )
    }

    @Test func metadataSetOnTheLoggerCanBeReplacedAndRemovedAndIsWrittenInKeyOrder() {
        var handler = LineLogHandler(label: "data-mediator", format: .text)
        handler[metadataKey: "zeta"] = "1"
        handler[metadataKey: "alpha"] = "2"
        handler[metadataKey: "mid"] = "3"
        handler[metadataKey: "alpha"] = "4"
        handler[metadataKey: "mid"] = nil
        handler[metadataKey: "absent"] = nil
        #expect(handler[metadataKey: "alpha"] == "4" && handler[metadataKey: "mid"] == nil)
        #expect(handler.metadata == ["alpha": "4", "zeta": "1"])
        let line = String(decoding: handler.line(for: event(nil), milliseconds: 0), as: UTF8.self)
        #expect(line == "1970-01-01T00:00:00.000Z info data-mediator: request alpha=4 zeta=1\n")
        handler.metadata = ["b": "x", "a": "y"]
        #expect(handler[metadataKey: "a"] == "y" && handler.metadata == ["a": "y", "b": "x"])
    }

    @Test func aRecordsMetadataJoinsTheLoggersAndWinsOnTheSameKey() {
        var handler = LineLogHandler(label: "data-mediator", format: .text)
        handler[metadataKey: "request_id"] = "r-1"
        handler[metadataKey: "status"] = "from the logger"
        let line = handler.line(
            for: event(["status": "200", "method": "GET", "z": "last", "a": "first"]),
            milliseconds: 0
        )
        #expect(
            String(decoding: line, as: UTF8.self)
                == "1970-01-01T00:00:00.000Z info data-mediator: request a=first method=GET request_id=r-1 status=200 z=last\n"
        )
    }

    @Test func hummingbirdsOwnRequestIDIsLeftOutOfLines() throws {
        var handler = LineLogHandler(label: "data-mediator", format: .json)
        handler[metadataKey: LineLogHandler.frameworkRequestIDKey] = "hb-7"
        handler[metadataKey: "request_id"] = "r-7"
        // Hummingbird reads its id back from the logger; it must still be there.
        #expect(handler[metadataKey: LineLogHandler.frameworkRequestIDKey] == "hb-7")
        let line = handler.line(
            for: event(["status": .stringConvertible(LoggedNumber(200)), "code": "007"]),
            milliseconds: 0
        )
        let record = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
        // A number logged as one is a JSON number; text that looks like one stays text.
        #expect(record["request_id"] as? String == "r-7" && record["status"] as? Int == 200)
        #expect(record["code"] as? String == "007")
        #expect(record[LineLogHandler.frameworkRequestIDKey] == nil)
    }
}
