import DataMediatorTesting
import Foundation
import Glibc
import Testing

/// An event stream's request line is written when it opens; its end is a line of its own,
/// with why and how long it ran, so an operator can tell how long clients follow.
@Suite struct EventStreamLogTests {
    @Test func aStreamsEndIsLoggedWithWhyAndHowLong() async throws {
        let server = try await ServerProcess(arguments: ["--demo-transactions", "10"])
        defer { server.removeData() }
        func ends() -> [[String: Any]] {
            server.log.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }.filter { $0["message"] as? String == "event stream ended" }
        }
        // The client goes away.
        var follower: RawClient? = try RawClient(port: server.port)
        follower?.send("GET /lists/transactions/events HTTP/1.1\r\nHost: localhost\r\nX-Request-ID: gone-1\r\n\r\n")
        #expect(await follower?.read(within: 5)?.hasPrefix("HTTP/1.1 200") == true)
        try await Task.sleep(for: .milliseconds(300))
        follower = nil
        for _ in 0..<100 where ends().isEmpty { try await Task.sleep(for: .milliseconds(50)) }
        let gone = try #require(ends().first, "\(server.log)")
        #expect(gone["reason"] as? String == "client gone" && gone["request_id"] as? String == "gone-1", "\(gone)")
        #expect((gone["duration_ms"] as? Double ?? 0) >= 300, "\(gone)")
        #expect(gone["list"] as? String == "transactions")
        // The service shuts down.
        let stayer = try RawClient(port: server.port)
        stayer.send("GET /lists/transactions/events HTTP/1.1\r\nHost: localhost\r\n\r\n")
        #expect(await stayer.read(within: 5)?.hasPrefix("HTTP/1.1 200") == true)
        #expect(await server.stop() == 0)
        #expect(ends().map { $0["reason"] as? String } == ["client gone", "shutdown"], "\(ends())")
    }
}
