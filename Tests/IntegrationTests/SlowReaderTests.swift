import DataMediatorTesting
import Foundation
import Testing

/// A large answer read slowly reaches its client whole: a connection's close (its idle
/// limit, a shutdown) waits for the answer's bytes to leave, and a client that stops
/// reading keeps neither its connection nor a shutdown past their limits.
@Suite struct SlowReaderTests {
    /// A server with a write token and ten transactions of 900 KB each, newest first in the
    /// default view: a page of 20 is about 9 MB, more than the kernel's buffers hold.
    static func serverWithLargeItems(_ environment: [String: String]) async throws -> ServerProcess {
        var settings = environment
        settings["DATA_MEDIATOR_WRITE_TOKENS"] = "a-write-token-for-slow-readers"
        let server = try await ServerProcess(arguments: ["--demo-transactions", "20"], environment: settings)
        let reason = String(repeating: "x", count: 900_000)
        let headers = ["Content-Type": "application/json", "Authorization": "Bearer a-write-token-for-slow-readers"]
        for second in 0..<10 {
            let time = "2030-01-01T00:00:0\(second)Z"
            let body = #"{"data": {"player": "zed", "points": 1, "reason": "\#(reason)", "created_at": "\#(time)"}}"#
            let created = try await server.send("POST", "/lists/transactions/items", headers: headers, body: body)
            #expect(created.status == 201)
        }
        return server
    }

    static let request = "GET /lists/transactions/items?limit=20 HTTP/1.1\r\nHost: localhost\r\n\r\n"

    /// Read at about 1.3 MB/s, the page's last bytes leave the server seconds after its idle
    /// limit of 2 s has passed since the answer was handed over; and again when the service
    /// is told to stop while the page is being read: the page comes whole, the exit is 0.
    @Test(.timeLimit(.minutes(2))) func aLargePageReadSlowlyComesWholePastTheIdleLimitAndAShutdown() async throws {
        let server = try await Self.serverWithLargeItems(["DATA_MEDIATOR_IDLE_TIMEOUT_SECONDS": "2"])
        defer { server.removeData() }
        let idle = try RawClient(port: server.port)
        idle.send(Self.request)
        let read = await idle.readAnswerSlowly(chunk: 65_536, pause: .milliseconds(50), within: 60)
        #expect(read.head.hasPrefix("HTTP/1.1 200"), "\(read.head)")
        #expect(read.announced > 8_000_000)
        #expect(read.received == read.announced, "\(read.received) of \(read.announced) bytes")

        let stopped = try RawClient(port: server.port)
        stopped.send(Self.request)
        async let whole = stopped.readAnswerSlowly(chunk: 65_536, pause: .milliseconds(50), within: 60)
        try await Task.sleep(for: .milliseconds(300))
        let status = await server.stop()
        let answer = await whole
        #expect(answer.received == answer.announced, "\(answer.received) of \(answer.announced) bytes")
        #expect(status == 0)
    }

    /// A client that reads none of a large page is let go with the framework's idle close,
    /// one idle limit after its request, as the client took none of it since: the close was
    /// held one idle limit more, counted from the close (probe 49: pages of 20 MB held
    /// about 2 minutes on each such connection, the limit 60 s). Read after 8 s of an idle
    /// limit of 5 s, the answer is cut (it came whole: the close was held until 10 s).
    @Test(.timeLimit(.minutes(2))) func anAnswerNeverReadIsLetGoAtTheIdleLimit() async throws {
        let server = try await Self.serverWithLargeItems(["DATA_MEDIATOR_IDLE_TIMEOUT_SECONDS": "5"])
        defer { server.removeData() }
        let stuck = try RawClient(port: server.port)
        stuck.send(Self.request)
        try await Task.sleep(for: .seconds(8))
        let read = await stuck.readAnswerSlowly(chunk: 65_536, pause: .zero, within: 30)
        #expect(read.head.hasPrefix("HTTP/1.1 200"), "\(read.head)")
        #expect(read.announced > 8_000_000)
        #expect(read.received < read.announced, "\(read.received) of \(read.announced) bytes: it was held")
    }

    /// A client that stops reading a large page holds a shutdown no longer than its grace
    /// period: the service ends within it, with status 0.
    @Test(.timeLimit(.minutes(2))) func aClientThatStopsReadingHoldsAShutdownNoLongerThanItsGrace() async throws {
        let server = try await Self.serverWithLargeItems(["DATA_MEDIATOR_SHUTDOWN_GRACE_SECONDS": "2"])
        defer { server.removeData() }
        let stuck = try RawClient(port: server.port)
        stuck.send(Self.request)
        // It reads the head, and then nothing.
        #expect(await stuck.read(within: 5)?.hasPrefix("HTTP/1.1 200") == true)
        let start = ContinuousClock.now
        let status = await server.stop()
        let took = ContinuousClock.now - start
        #expect(status == 0, "\(server.log.suffix(600))")
        // The watchdog would end it with 1 five seconds past the grace period.
        #expect(took < .seconds(5), "the shutdown took \(took)")
    }
}
