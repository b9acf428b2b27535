import Foundation
import Logging
import Testing

@testable import data_mediator

@Suite struct JSONLogHandlerTests {
    @Test func aRecordIsOneJSONLineWithItsMetadataAsMembers() throws {
        let line = JSONLogHandler.line(
            time: Date(timeIntervalSince1970: 1_795_129_200.25),
            level: .warning,
            label: "data-mediator",
            message: "a \"quoted\"\nmessage",
            metadata: ["request_id": "r-1", "nested": ["a": ["1", "2"]], "count": .stringConvertible(3)]
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
