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

    /// A client that resets its connection right after its request: the stream's open line
    /// was written, and its end line too, though the framework let its body go unwritten
    /// (most such streams had no end line: a count of open streams from the log grew for
    /// good; review 94 #4).
    @Test func aStreamLetGoUnwrittenIsLoggedAsEnded() async throws {
        let server = try await ServerProcess(arguments: ["--demo-transactions", "10"])
        defer { server.removeData() }
        let count = 40
        for index in 0..<count {
            let client = try RawClient(port: server.port)
            client.send(
                "GET /lists/transactions/events HTTP/1.1\r\nHost: localhost\r\nX-Request-ID: reset-\(index)\r\n\r\n"
            )
            // Closed with a reset (RST), not a FIN: nothing the server writes is read.
            var reset = linger(l_onoff: 1, l_linger: 0)
            setsockopt(client.socket, SOL_SOCKET, SO_LINGER, &reset, socklen_t(MemoryLayout<linger>.size))
        }
        // A stream opened is a request line of status 200: the server accepts the 40 at once
        // (a7b15b7), and those past the client's share of streams are answered 503, which
        // opens none.
        func lines(_ message: String?) -> Set<String> {
            Set(
                server.log.split(separator: "\n").compactMap {
                    try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
                }.filter { ($0["request_id"] as? String)?.hasPrefix("reset-") == true }
                    .filter {
                        message == nil
                            ? ($0["status"] as? Int ?? ($0["status"] as? String).flatMap { Int($0) }) == 200
                            : $0["message"] as? String == message
                    }
                    .compactMap { $0["request_id"] as? String }
            )
        }
        var opened = Set<String>()
        var ended = Set<String>()
        for _ in 0..<100 {
            try await Task.sleep(for: .milliseconds(50))
            (opened, ended) = (lines(nil), lines("event stream ended"))
            if !opened.isEmpty, opened == ended { break }
        }
        #expect(!opened.isEmpty, "\(server.log)")
        #expect(opened.subtracting(ended).isEmpty, "opened but never ended: \(opened.subtracting(ended).sorted())")
        // Once each: the body run and the body let go do not both say it.
        let endLines = server.log.split(separator: "\n").filter {
            $0.contains(#""event stream ended""#) && $0.contains(#""request_id":"reset-"#)
        }
        #expect(endLines.count == ended.count, "\(endLines.count) end lines for \(ended.count) streams")
        #expect(await server.stop() == 0)
    }
}
