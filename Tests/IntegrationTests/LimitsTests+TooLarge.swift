import DataMediatorTesting
import Foundation
import Testing

/// A write body over the limit: answered `413` before it comes, its connection closed after
/// the answer without losing it, and its place given to a newcomer.
extension LimitsTests {
    /// A write whose body is over the limit is answered `413` before the body comes, and
    /// its connection closes after the answer: the rest of the body is not read as another
    /// request (probe 63: a second log line, a `400` of method `-`, when the client then
    /// sent more or closed), and a client still sending it is given a body's time to.
    @Test func aBodyOverTheLimitIsAnsweredAndItsConnectionCloses() async throws {
        let server = try await ServerProcess(
            arguments: ["--demo-transactions", "10"],
            environment: ["DATA_MEDIATOR_WRITE_TOKENS": "t"]
        )
        defer { server.removeData() }
        for more in [true, false] {
            let client = try RawClient(port: server.port)
            client.send(
                RawClient.transactionWrite(length: 5_000_000, fields: "X-Request-ID: too-large-\(more)\r\n") + #"{"da"#
            )
            let answer = await client.readAnswer(within: 5) ?? ""
            #expect(answer.hasPrefix("HTTP/1.1 413") && answer.contains("Connection: close"), "\(answer)")
            if more { client.send(String(repeating: "x", count: 10_000)) }
            // The client closes (its socket, when it goes at the end of the turn).
        }
        // A client that reads only once it has sent its whole body, slowly (2.5 s of it):
        // the connection waits for it, so the 413 is not lost to a reset.
        let uploader = try RawClient(port: server.port)
        uploader.send(
            RawClient.transactionWrite(length: 1_200_000, fields: "X-Request-ID: too-large-slow\r\n")
        )
        let part = String(repeating: "x", count: 100_000)
        var taken = 0
        for _ in 0..<12 {
            if uploader.send(part) { taken += 1 }
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(taken == 12, "the server stopped taking the body after \(taken) parts")
        let slow = await uploader.readAnswer(within: 5) ?? ""
        #expect(slow.hasPrefix("HTTP/1.1 413"), "the slow uploader's answer was lost: \(slow)")
        try await Task.sleep(for: .seconds(2))
        let lines = server.log.split(separator: "\n").filter { $0.contains(#""message":"request""#) }
        #expect(lines.filter { $0.contains("too-large-") }.count == 3, "\(lines)")
        #expect(!lines.contains { $0.contains(#""method":"-""#) }, "\(lines)")
        #expect(await server.stop() == 0)
    }

    /// A connection waiting out a `413`'s body holds no place another needs: at the limit,
    /// a newcomer takes its place (its client has its answer) before that of a write whose
    /// body is still coming, even one awaited longer.
    @Test func aConnectionAfterA413GivesItsPlaceToANewcomer() async throws {
        let server = try await ServerProcess(
            arguments: ["--demo-transactions", "10"],
            environment: ["DATA_MEDIATOR_MAX_CONNECTIONS": "2", "DATA_MEDIATOR_WRITE_TOKENS": "t"]
        )
        defer { server.removeData() }
        let body = #"{"data": {"player": "slow", "points": 5, "reason": "r", "created_at": "2030-01-01T00:00:00Z"}}"#
        let write = try RawClient(port: server.port)
        write.send(
            RawClient.transactionWrite(length: body.utf8.count) + "{"
        )
        #expect(await write.read(within: 1) == nil, "the write answered before its body came")
        let tooLarge = try RawClient(port: server.port)
        tooLarge.send(
            RawClient.transactionWrite(length: 5_000_000) + "{"
        )
        #expect(await tooLarge.readAnswer(within: 5)?.hasPrefix("HTTP/1.1 413") == true)
        let newcomer = try RawClient(port: server.port)
        newcomer.send("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
        #expect(await newcomer.read(within: 5)?.hasPrefix("HTTP/1.1 200") == true, "the newcomer was not served")
        // The write whose body was awaited kept its place: its body comes and it is stored.
        write.send(String(body.dropFirst()))
        #expect(await write.read(within: 5)?.hasPrefix("HTTP/1.1 201") == true, "the write lost its place")
        withExtendedLifetime(tooLarge) {}
        #expect(await server.stop() == 0)
    }
}
