import DataMediatorTesting
import Foundation
import Glibc
import Testing

/// The limits that keep one bad client from hurting the rest, on the real binary.
@Suite(.serialized) struct LimitsTests {
    @Test func aClientSendingItsRequestByteByByteIsCutOff() async throws {
        // The limit is wide and every pause far from it: the whole suite runs beside this
        // test on two cores, and a pause of 1.6 s against a 4 s limit once overran it in CI.
        let server = try await ServerProcess(
            arguments: ["--demo-transactions", "10"],
            environment: [
                "DATA_MEDIATOR_REQUEST_HEAD_TIMEOUT_SECONDS": "8", "DATA_MEDIATOR_IDLE_TIMEOUT_SECONDS": "24",
            ]
        )
        defer { server.removeData() }
        let slow = try RawClient(port: server.port)
        var cut = false
        let head = "GET /health HTTP/1.1\r\nHost: localhost\r\nX-Slow: \(String(repeating: "a", count: 50))\r\n\r\n"
        for byte in head {
            try await Task.sleep(for: .milliseconds(200))
            if !slow.send(String(byte)) {
                cut = true
                break
            }
        }
        let closed = cut ? true : await slow.read(within: 2) == ""
        #expect(closed, "a request head sent over 18 s was answered")
        // A client that sends its request at once is served.
        let quick = try RawClient(port: server.port)
        quick.send("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
        #expect(await quick.readAnswer(within: 5)?.hasPrefix("HTTP/1.1 200") == true)
        // A kept-alive connection asking again and again is served for longer than the
        // time limit (it counts from each answer's end): six pauses of a quarter of it.
        for _ in 0..<6 {
            try await Task.sleep(for: .milliseconds(2000))
            #expect(quick.send("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n"))
            #expect(await quick.readAnswer(within: 5)?.hasPrefix("HTTP/1.1 200") == true)
        }
        // The head's limit runs from its first byte: a connection that waits longer than it
        // for its next request, within the idle limit, is served...
        let silent = try RawClient(port: server.port)
        try await Task.sleep(for: .milliseconds(10000))
        #expect(quick.send("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n"))
        #expect(
            await quick.readAnswer(within: 5)?.hasPrefix("HTTP/1.1 200") == true,
            "a kept-alive connection idle past the head timeout, within the idle one, was not served"
        )
        // ...and closed when it sends nothing for the idle limit, as is one that never sent.
        #expect(await silent.read(within: 1) == nil, "a silent connection was closed before the idle limit")
        try await Task.sleep(for: .milliseconds(26000))
        #expect(
            await quick.read(within: 3) == "",
            "an idle kept-alive connection was not closed after the idle timeout"
        )
        #expect(
            await silent.read(within: 1) == "",
            "a connection that never sent was not closed after the idle timeout"
        )
        // The slow head's cut is counted (it was neither logged nor counted: review 94 #6).
        #expect(try await Self.metric("data_mediator_head_timeouts", on: server) == 1)
        #expect(await server.stop() == 0)
    }

    /// The value of the metric whose line starts with `series` in `/metrics`, 0 without one.
    static func metric(_ series: String, on server: ServerProcess) async throws -> Double {
        let text = String(decoding: try await server.get("/metrics").body, as: UTF8.self)
        let line = text.split(separator: "\n").first { $0.hasPrefix(series + " ") }
        return line.flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0
    }

    /// A body sent a byte now and then keeps the connection from ever being idle: it is
    /// cut off once its time from the head has passed, answered `408` first.
    @Test func aClientSendingItsBodyByteByByteIsCutOff() async throws {
        let server = try await ServerProcess(
            arguments: ["--demo-transactions", "10"],
            environment: ["DATA_MEDIATOR_REQUEST_BODY_TIMEOUT_SECONDS": "4", "DATA_MEDIATOR_WRITE_TOKENS": "t"]
        )
        defer { server.removeData() }
        let slow = try RawClient(port: server.port)
        slow.send(
            RawClient.transactionWrite(length: 100) + "{"
        )
        let started = ContinuousClock.now
        var cut = false
        for _ in 0..<30 where !cut {
            try await Task.sleep(for: .milliseconds(500))
            // Once the server has closed, a send fails (the first may still be buffered).
            cut = !slow.send(" ")
        }
        #expect(cut, "a body sent a byte every half second for 15 s was still read")
        #expect(ContinuousClock.now - started >= .seconds(3), "cut off before its time")
        // At its own 4 s (then a second for the client to close), not at the 10 s head timeout.
        #expect(ContinuousClock.now - started < .seconds(9), "cut off at \(ContinuousClock.now - started)")
        let answer = await slow.readAnswer(within: 3) ?? ""
        #expect(answer.hasPrefix("HTTP/1.1 408"), "the cut body was not answered: \(answer)")
        #expect(answer.contains("/problems/request-timeout") && answer.contains("within 4 seconds"))
        #expect(await server.stop() == 0)
    }

    /// A write pipelined after another request keeps its own body deadline (the first
    /// answer's end does not turn it into the head timeout) and is answered `408` in its
    /// turn, naming its path and the client's request id; the framework's late answer to
    /// the cut request is neither logged nor counted.
    @Test func aPipelinedBodyCutOffIsAnsweredInItsTurn() async throws {
        let server = try await ServerProcess(
            arguments: ["--demo-transactions", "10"],
            environment: [
                "DATA_MEDIATOR_REQUEST_BODY_TIMEOUT_SECONDS": "3", "DATA_MEDIATOR_REQUEST_HEAD_TIMEOUT_SECONDS": "30",
                "DATA_MEDIATOR_WRITE_TOKENS": "t",
            ]
        )
        defer { server.removeData() }
        let slow = try RawClient(port: server.port)
        slow.send(
            "GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n"
                + "POST /lists/transactions/items?_x=1 HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer t\r\n"
                + "X-Request-ID: pipelined-write-7\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
        )
        let started = ContinuousClock.now
        #expect(await slow.readAnswer(within: 5)?.hasPrefix("HTTP/1.1 200") == true, "the first request unanswered")
        // Its body deadline (3 s from its head), not the head timeout (30 s from the first answer).
        let answer = await slow.readAnswer(within: 12) ?? ""
        let waited = ContinuousClock.now - started
        #expect(answer.hasPrefix("HTTP/1.1 408"), "the pipelined body's cut was not answered: \(answer)")
        #expect(waited < .seconds(15), "cut at \(waited), not at its 3 s body timeout")
        #expect(answer.contains("X-Request-ID: pipelined-write-7"), "\(answer)")
        #expect(answer.contains("X-Content-Type-Options: nosniff"), "\(answer)")
        #expect(answer.contains(#""instance":"/lists/transactions/items""#), "\(answer)")
        // The connection closes a second after the answer at most; the framework's own
        // reading of the cut body ends then.
        try await Task.sleep(for: .seconds(3))
        let lines = server.log.split(separator: "\n").filter { $0.contains("pipelined-write-7") }
        #expect(lines.count == 1 && lines.first?.contains(#""status":408"#) == true, "\(lines)")
        #expect(lines.first?.contains(#""duration_ms":"#) == true, "\(lines)")
        // Counted once, as the 408 it was (probe 63: in no metric); the framework's late
        // answer is not.
        let metrics = String(decoding: try await server.get("/metrics").body, as: UTF8.self)
        let posts = metrics.split(separator: "\n").filter {
            $0.hasPrefix(#"hb_requests{http_route="/lists/{list}/items",http_request_method="POST""#)
        }
        #expect(
            posts == [
                #"hb_requests{http_route="/lists/{list}/items",http_request_method="POST",http_response_status_code="408"} 1"#
            ],
            "\(posts)"
        )
        #expect(await server.stop() == 0)
    }

    /// A connection beyond the limit takes the place of the one that has waited longest
    /// for a request (idle connections held open must not keep others out); when every
    /// connection has a request in flight (event streams here), it is closed.
    @Test func aConnectionBeyondTheLimitTakesTheLongestIdlesPlace() async throws {
        let server = try await ServerProcess(
            arguments: ["--demo-transactions", "10"],
            environment: ["DATA_MEDIATOR_MAX_CONNECTIONS": "2"]
        )
        defer { server.removeData() }
        let first = try RawClient(port: server.port)
        #expect(await first.read(within: 1) == nil)
        let second = try RawClient(port: server.port)
        #expect(await second.read(within: 1) == nil)
        let third = try RawClient(port: server.port)
        third.send("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
        #expect(await third.read(within: 5)?.hasPrefix("HTTP/1.1 200") == true, "the newcomer was not served")
        #expect(await first.read(within: 2) == "", "the longest idle connection was not closed")
        #expect(await second.read(within: 1) == nil, "a connection idle for less time was closed")
        for client in [second, third] {
            client.send("GET /lists/transactions/events HTTP/1.1\r\nHost: localhost\r\n\r\n")
            #expect(await client.read(within: 5)?.hasPrefix("HTTP/1.1 200") == true)
        }
        let fourth = try RawClient(port: server.port)
        #expect(await fourth.read(within: 2) == "", "a connection beyond the limit of busy ones was not closed")
        #expect(server.log.contains("connections refused") && server.log.contains("2 connections, the most in all"))
        withExtendedLifetime((first, second, third, fourth)) {}
        #expect(await server.stop() == 0)
    }

    /// Connections each in the middle of a body (a write whose body trickles in) have done
    /// nothing yet: when no connection is idle, a newcomer takes the place of the one whose
    /// body has been awaited longest, and its write is not stored.
    @Test func aConnectionBeyondTheLimitTakesTheLongestUnfinishedBodysPlace() async throws {
        let server = try await ServerProcess(
            arguments: ["--demo-transactions", "10"],
            environment: ["DATA_MEDIATOR_MAX_CONNECTIONS": "2", "DATA_MEDIATOR_WRITE_TOKENS": "t"]
        )
        defer { server.removeData() }
        func body(_ index: Int) -> String {
            #"{"data": {"player": "slow", "points": 5, "reason": "body \#(index)", "created_at": "2030-01-01T00:00:00Z"}}"#
        }
        var slow: [RawClient] = []
        for index in 0..<2 {
            let body = body(index)
            let client = try RawClient(port: server.port)
            client.send(
                RawClient.transactionWrite(length: body.utf8.count) + "{"
            )
            #expect(await client.read(within: 1) == nil, "the write answered before its body came")
            slow.append(client)
        }
        let newcomer = try RawClient(port: server.port)
        newcomer.send("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
        #expect(await newcomer.read(within: 5)?.hasPrefix("HTTP/1.1 200") == true, "the newcomer was not served")
        // Answered before it is closed: nothing was stored, retry.
        let evicted = await slow[0].readAnswer(within: 3) ?? ""
        #expect(evicted.hasPrefix("HTTP/1.1 503"), "the longest unfinished body was not answered: \(evicted)")
        #expect(evicted.contains("/problems/too-many-connections") && evicted.lowercased().contains("retry-after: 1"))
        #expect(evicted.lowercased().contains("connection: close"))
        #expect(await slow[0].read(within: 3) == "", "the longest unfinished body was not closed")
        slow[1].send(String(body(1).dropFirst()))
        #expect(await slow[1].read(within: 5)?.hasPrefix("HTTP/1.1 201") == true, "the younger write was not served")
        let page = String(
            decoding: try await server.get("/lists/transactions/items?view=by_player&player=slow").body,
            as: UTF8.self
        )
        #expect(page.contains("body 1") && !page.contains("body 0"), "\(page)")
        withExtendedLifetime((slow, newcomer)) {}
        #expect(await server.stop() == 0)
    }

    /// With a cap per address, one address's connections beyond it are closed while another
    /// address is served, and a closed connection gives its place back.
    @Test func connectionsBeyondAnAddresssCapAreClosedAndOthersAreServed() async throws {
        let server = try await ServerProcess(
            arguments: ["--demo-transactions", "10"],
            environment: ["DATA_MEDIATOR_CLIENT_CONNECTIONS": "2"]
        )
        defer { server.removeData() }
        var held = [try RawClient(port: server.port), try RawClient(port: server.port)]
        let third = try RawClient(port: server.port)
        #expect(await third.read(within: 2) == "", "a third connection from one address was not closed")
        #expect(server.log.contains("connections refused") && server.log.contains("2 connections from one address"))
        // Three more within the line's 10 s are told in one line when they end (probe 63:
        // held until a later refusal, which may never come).
        for _ in 0..<3 { #expect(await (try RawClient(port: server.port)).read(within: 2) == "") }
        try await Task.sleep(for: .seconds(11))
        let lines = server.log.split(separator: "\n").filter { $0.contains("connections refused") }
        #expect(lines.count == 2 && lines.last?.contains(#""count":"3""#) == true, "\(lines)")
        let other = try RawClient(port: server.port, from: "127.0.0.2")
        other.send("GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n")
        let scraped = await other.readAnswer(within: 5) ?? ""
        #expect(scraped.hasPrefix("HTTP/1.1 200"), "another address was not served")
        // Counted by why (a saturated server was only a failed scrape: review 94 #6).
        #expect(scraped.contains(#"data_mediator_connections_refused{why="address"} 4"#), "\(scraped)")
        held.removeLast()
        var served = false
        for _ in 0..<20 where !served {
            try await Task.sleep(for: .milliseconds(100))
            let again = try RawClient(port: server.port)
            again.send("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
            served = await again.read(within: 2)?.hasPrefix("HTTP/1.1 200") == true
        }
        #expect(served, "a closed connection did not give its place back")
        withExtendedLifetime((held, other)) {}
        #expect(await server.stop() == 0)
    }

    @Test func headersOverTheLimitAreRefused() async throws {
        let server = try await ServerProcess(
            arguments: ["--demo-transactions", "10"],
            environment: ["DATA_MEDIATOR_MAX_HEADER_BYTES": "4096"]
        )
        defer { server.removeData() }
        let client = try RawClient(port: server.port)
        client.send("GET /health HTTP/1.1\r\nHost: localhost\r\nX-Big: \(String(repeating: "a", count: 8000))\r\n\r\n")
        let answer = await client.read(within: 5) ?? ""
        #expect(answer.hasPrefix("HTTP/1.1 4"), "\(answer)")
        // A long URI counts too.
        let long = try RawClient(port: server.port)
        long.send("GET /health?x=\(String(repeating: "a", count: 8000)) HTTP/1.1\r\nHost: localhost\r\n\r\n")
        #expect((await long.read(within: 5) ?? "").hasPrefix("HTTP/1.1 4"))
        // Within the limit: served.
        let fine = try RawClient(port: server.port)
        fine.send("GET /health HTTP/1.1\r\nHost: localhost\r\nX-Big: \(String(repeating: "a", count: 2000))\r\n\r\n")
        #expect(await fine.read(within: 5)?.hasPrefix("HTTP/1.1 200") == true)
        #expect(await server.stop() == 0)
    }

    @Test func eventStreamsBeyondTheLimitAnswer503WithRetryAfter() async throws {
        let server = try await ServerProcess(
            arguments: ["--demo-transactions", "10"],
            environment: ["DATA_MEDIATOR_MAX_STREAMS": "1"]
        )
        defer { server.removeData() }
        let stream = try RawClient(port: server.port)
        stream.send("GET /lists/transactions/events HTTP/1.1\r\nHost: localhost\r\n\r\n")
        #expect(await stream.read(within: 5)?.hasPrefix("HTTP/1.1 200") == true)
        let refused = try await server.get("/lists/transactions/events")
        #expect(refused.status == 503 && refused.headers["retry-after"] == "5")
        #expect(String(decoding: refused.body, as: UTF8.self).contains("/problems/too-many-streams"))
        // HEAD answers as its GET would now (RFC 9110 9.3.2), and holds no share.
        let head = try await server.send("HEAD", "/lists/transactions/events")
        #expect(head.status == 503 && head.headers["retry-after"] == "5", "\(head.status)")
        withExtendedLifetime(stream) {}
        #expect(await server.stop() == 0)
    }

    @Test func oneClientHoldsItsShareOfTheStreamsAndNoMore() async throws {
        let server = try await ServerProcess(
            arguments: ["--demo-transactions", "10"],
            environment: [
                "DATA_MEDIATOR_MAX_STREAMS": "3", "DATA_MEDIATOR_CLIENT_STREAMS": "2",
                "DATA_MEDIATOR_HEARTBEAT_SECONDS": "1",
                // A share is a verified credential's: made-up tokens would all be one address.
                "DATA_MEDIATOR_READ_TOKENS": "ana,bo,cy",
            ]
        )
        defer { server.removeData() }
        func open(_ token: String) async throws -> (client: RawClient, head: String) {
            try await Self.openStream(port: server.port, token: token)
        }
        var ana = [try await open("ana"), try await open("ana")]
        #expect(ana.allSatisfy { $0.head.hasPrefix("HTTP/1.1 200") })
        let third = try await open("ana")
        #expect(third.head.hasPrefix("HTTP/1.1 503") && third.head.contains("This client holds 2"), "\(third.head)")
        // Bo has his own share, up to the server's limit.
        let bo = try await open("bo")
        #expect(bo.head.hasPrefix("HTTP/1.1 200"))
        #expect(try await open("cy").head.hasPrefix("HTTP/1.1 503"))
        // Ana closes one; once its stream notices, her share is back.
        ana.removeLast()
        var reopened = false
        for _ in 0..<20 where !reopened {
            try await Task.sleep(for: .milliseconds(500))
            let attempt = try await open("ana")
            if attempt.head.hasPrefix("HTTP/1.1 200") {
                reopened = true
                ana.append(attempt)
            }
        }
        #expect(reopened)
        withExtendedLifetime((ana, bo, third)) {}
        #expect(await server.stop() == 0)
    }

    /// A client that closes its event streams has its share back at once, not at each
    /// stream's next heartbeat (15 s here): a page reloaded in a browser opens them again.
    @Test func closedStreamsGiveBackTheirShareAtOnce() async throws {
        let server = try await ServerProcess(
            arguments: ["--demo-transactions", "10"],
            environment: [
                "DATA_MEDIATOR_MAX_STREAMS": "3", "DATA_MEDIATOR_CLIENT_STREAMS": "2",
                "DATA_MEDIATOR_HEARTBEAT_SECONDS": "15", "DATA_MEDIATOR_READ_TOKENS": "ana",
            ]
        )
        defer { server.removeData() }
        func open() async throws -> (client: RawClient, head: String) {
            try await Self.openStream(port: server.port, token: "ana")
        }
        // Each round may have to wait while the server notices the last round's streams
        // closed (a loaded machine), but for 5 s at most: far less than a heartbeat.
        for round in 0..<3 {
            let deadline = ContinuousClock.now + .seconds(5)
            var streams = [try await open(), try await open()]
            while !streams.allSatisfy({ $0.head.hasPrefix("HTTP/1.1 200") }), ContinuousClock.now < deadline {
                streams.removeAll()
                try await Task.sleep(for: .milliseconds(100))
                streams = [try await open(), try await open()]
            }
            #expect(streams.allSatisfy { $0.head.hasPrefix("HTTP/1.1 200") }, "round \(round)")
            streams.removeAll()
        }
        var gauge = ""
        for _ in 0..<50 where !gauge.contains("data_mediator_sse_streams 0.0") {
            try await Task.sleep(for: .milliseconds(100))
            gauge = String(decoding: try await server.get("/metrics").body, as: UTF8.self)
        }
        #expect(gauge.contains("data_mediator_sse_streams 0.0"), "\(gauge)")
        #expect(await server.stop() == 0)
    }

    /// An event stream of the demo's transactions opened with `token` over a raw socket,
    /// and the first bytes of its answer.
    static func openStream(port: Int, token: String) async throws -> (client: RawClient, head: String) {
        let client = try RawClient(port: port)
        client.send(
            "GET /lists/transactions/events HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\n\r\n"
        )
        return (client, await client.read(within: 5) ?? "")
    }
}
