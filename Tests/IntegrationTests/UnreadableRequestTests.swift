import DataMediatorTesting
import Foundation
import Testing

/// Requests the HTTP parser cannot read, and bodies found too large only while they are
/// read, on the real binary: each answers a problem like every other error, and nothing is
/// stored.
@Suite(.serialized) struct UnreadableRequestTests {
    /// Everything the server sends on a connection until it closes it (or `seconds` pass).
    static func readUntilClosed(_ client: RawClient, within seconds: Int) async -> String {
        await read(client, within: seconds).text
    }

    /// What the server sends until it closes the connection, and whether it did within
    /// `seconds`.
    static func read(_ client: RawClient, within seconds: Int) async -> (text: String, closed: Bool) {
        var text = ""
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            guard let more = await client.read(within: 1) else { continue }
            if more.isEmpty { return (text, true) }
            text += more
        }
        return (text, false)
    }

    /// The status, the lower-cased header lines and the JSON body of one answer's text.
    static func problem(in answer: Substring) throws -> (status: Int, headers: [String], body: [String: Any]) {
        let end = try #require(answer.range(of: "\r\n\r\n"), "no whole head in \(answer)")
        let lines = answer[..<end.lowerBound].split(separator: "\r\n").map { $0.lowercased() }
        let status = try #require(lines.first.flatMap { Int($0.split(separator: " ")[1]) })
        let body = try #require(
            try JSONSerialization.jsonObject(with: Data(answer[end.upperBound...].utf8)) as? [String: Any]
        )
        return (status, Array(lines.dropFirst()), body)
    }

    @Test func whatTheParserCannotReadAnswersAProblemAndClosesTheConnection() async throws {
        let server = try await ServerProcess(
            arguments: ["--demo-transactions", "10"],
            environment: ["DATA_MEDIATOR_MAX_HEADER_BYTES": "4096"]
        )
        defer { server.removeData() }
        let long = String(repeating: "a", count: 8000)
        let fields = (0..<256).map { "X-H\($0): v\r\n" }.joined()
        for (index, (request, status, type)) in [
            ("FOO /lists HTTP/1.1\r\nHost: localhost\r\n\r\n", 501, "not-implemented"),
            ("GET /health HTTP/1.1\r\nHost: localhost\r\nX-Big: \(long)\r\n\r\n", 431, "headers-too-large"),
            ("GET /health?x=\(long) HTTP/1.1\r\nHost: localhost\r\n\r\n", 431, "headers-too-large"),
            // 257 short fields (2.7 KB): too many, whatever their size.
            ("GET /health HTTP/1.1\r\nHost: localhost\r\n\(fields)\r\n", 431, "headers-too-large"),
            ("GET /health HTTP/1.1\r\nHost localhost\r\n\r\n", 400, "bad-request"),
            // RFC 9112 3.2: an HTTP/1.1 request without Host, any with two, or one that is
            // not a host.
            ("GET /health HTTP/1.1\r\n\r\n", 400, "bad-request"),
            ("GET /health HTTP/1.1\r\nHost: localhost\r\nHost: other\r\n\r\n", 400, "bad-request"),
            ("GET /health HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n", 400, "bad-request"),
            ("GET /health HTTP/1.1\r\nHost: local host\r\n\r\n", 400, "bad-request"),
            ("GET /health HTTP/1.1\r\nHost: user@localhost\r\n\r\n", 400, "bad-request"),
            ("GET /health HTTP/1.1\r\nHost: a:xx\r\n\r\n", 400, "bad-request"),
            ("GET /health HTTP/1.1\r\nHost: [::1\r\n\r\n", 400, "bad-request"),
            ("GET /health HTTP/1.1\r\nHost: ::1\r\n\r\n", 400, "bad-request"),
            ("GET /health HTTP/1.1\r\nHost: a:1:2\r\n\r\n", 400, "bad-request"),
            // RFC 9112 3.2: no fragment in a target; `*` for OPTIONS only.
            ("GET /health#top HTTP/1.1\r\nHost: localhost\r\n\r\n", 400, "bad-request"),
            ("GET * HTTP/1.1\r\nHost: localhost\r\n\r\n", 400, "bad-request"),
            // Characters a URI never holds unencoded, in a path or a query (RFC 9112 3.2).
            ("GET /lists/a{b} HTTP/1.1\r\nHost: localhost\r\n\r\n", 400, "bad-request"),
            ("GET /lists/transactions/items?view=a|b HTTP/1.1\r\nHost: localhost\r\n\r\n", 400, "bad-request"),
            ("GET /health?q=%22<x>%22 HTTP/1.1\r\nHost: localhost\r\n\r\n", 400, "bad-request"),
            ("GET /lists/a\\b HTTP/1.1\r\nHost: localhost\r\n\r\n", 400, "bad-request"),
            ("GET /lists/`^\" HTTP/1.1\r\nHost: localhost\r\n\r\n", 400, "bad-request"),
            // HTTP/1.0 has no transfer codings (RFC 9112 6.1): its framing is faulty.
            (
                "POST /lists/transactions/items HTTP/1.0\r\nTransfer-Encoding: chunked\r\n"
                    + "Content-Type: application/json\r\n\r\n2\r\n{}\r\n0\r\n\r\n", 400, "bad-request"
            ),
            // RFC 9112 6: a body whose length cannot be read (chunked not last, or twice) is
            // 400; one in a transfer coding the server does not decode 501.
            (
                "POST /lists/transactions/items HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: gzip\r\n"
                    + "Content-Type: application/json\r\n\r\n{}", 400, "bad-request"
            ),
            (
                "POST /lists/transactions/items HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400, "bad-request"
            ),
            (
                "POST /lists/transactions/items HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: gzip, chunked\r\n"
                    + "Content-Type: application/json\r\n\r\n0\r\n\r\n", 501, "not-implemented"
            ),
            // No route tunnels: CONNECT is 405 with its problem (NIO's encoder would send
            // it without the body), whether its target is an authority or a path.
            ("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n", 405, "method-not-allowed"),
            ("CONNECT /lists HTTP/1.1\r\nHost: localhost\r\n\r\n", 405, "method-not-allowed"),
            // RFC 9110 15.6.6: a version the server does not speak.
            ("GET /health HTTP/9.9\r\nHost: localhost\r\n\r\n", 505, "http-version-not-supported"),
            // NIO's parser reads a bare LF after the version as a version it does not know.
            ("GET /health HTTP/1.1\nHost: localhost\n\n", 505, "http-version-not-supported"),
            // NIO's parser takes PRI for HTTP/2's preface and names the version bad: PRI
            // is a method the server does not know, and the whole preface a version it
            // does not speak (RFC 9113 3.4).
            ("PRI /health HTTP/1.1\r\nHost: localhost\r\n\r\n", 501, "not-implemented"),
            ("PRI * HTTP/1.0\r\nHost: localhost\r\n\r\n", 501, "not-implemented"),
            ("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 505, "http-version-not-supported"),
        ].enumerated() {
            let client = try RawClient(port: server.port)
            client.send(request)
            let answer = await Self.readUntilClosed(client, within: 5)
            let problem = try Self.problem(in: answer[...])
            #expect(problem.status == status, "\(request.prefix(30))")
            #expect(problem.headers.contains("content-type: application/problem+json"), "\(answer)")
            #expect(problem.headers.contains("connection: close"), "\(answer)")
            // As every answer: an id, the date (RFC 9110 6.6.1) and the server.
            for field in ["x-request-id: ", "date: ", "server: data-mediator"] {
                #expect(problem.headers.contains { $0.hasPrefix(field) }, "\(field): \(answer)")
            }
            #expect(problem.body["type"] as? String == "/problems/\(type)" && problem.body["status"] as? Int == status)
            #expect((problem.body["detail"] as? String)?.isEmpty == false)
            // The parser refuses the first five, `chunked` twice and the version before any head is read
            // (no path to name); the rest have a head, and their problem names its path (`*`
            // and an authority are none; a fragment is no part of it).
            let path = request.split(separator: " ")[1].prefix { $0 != "#" && $0 != "?" }
            let headless =
                index < 5 || request.contains("chunked\r\nTransfer-Encoding: chunked") || request.contains("HTTP/9")
                || request.contains("1.1\nHost") || request.hasPrefix("PRI") || path == "*" || !path.hasPrefix("/")
                || path.contains(where: { #""<>\^`{|}"#.contains($0) })
            #expect(problem.body["instance"] as? String == (headless ? nil : String(path)), "\(request): \(answer)")
        }
        // Pipelined after a request it can read: that one is answered first, then the problem.
        let client = try RawClient(port: server.port)
        client.send("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\nFOO /lists HTTP/1.1\r\nHost: localhost\r\n\r\n")
        let answers = await Self.readUntilClosed(client, within: 5)
        #expect(answers.hasPrefix("HTTP/1.1 200"), "\(answers)")
        let second = try #require(answers.range(of: "HTTP/1.1 501"), "\(answers)")
        #expect(
            try Self.problem(in: answers[second.lowerBound...]).body["type"] as? String == "/problems/not-implemented"
        )
        // A PRI pipelined after a request it can read: the parser's word is all there is
        // (the version), and the detail names PRI too.
        let pri = try RawClient(port: server.port)
        pri.send("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\nPRI /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
        let priAnswers = await Self.readUntilClosed(pri, within: 5)
        #expect(priAnswers.hasPrefix("HTTP/1.1 200"), "\(priAnswers)")
        let refusedPRI = try #require(priAnswers.range(of: "HTTP/1.1 505"), "\(priAnswers)")
        let priDetail = try Self.problem(in: priAnswers[refusedPRI.lowerBound...]).body["detail"] as? String
        #expect(priDetail?.contains("PRI") == true, "\(priAnswers)")
        // A request without Host pipelined after one with it: that one is answered first.
        let hostless = try RawClient(port: server.port)
        hostless.send("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\nGET /health HTTP/1.1\r\n\r\n")
        let both = await Self.readUntilClosed(hostless, within: 5)
        #expect(both.hasPrefix("HTTP/1.1 200"), "\(both)")
        let refused = try #require(both.range(of: "HTTP/1.1 400"), "\(both)")
        #expect(try Self.problem(in: both[refused.lowerBound...]).body["type"] as? String == "/problems/bad-request")
        // HTTP/1.0 may leave Host out, and its connection closes after the answer unless it
        // asks to keep it (RFC 9112 9.3; the server's idle timeout is 60 s); an empty Host (a
        // target without authority) is one too; so are an IP literal and a port.
        for request in [
            "GET /health HTTP/1.0\r\n\r\n", "GET /health HTTP/1.1\r\nHost:\r\nConnection: close\r\n\r\n",
            "GET /health HTTP/1.1\r\nHost: [::1]:8080\r\nConnection: close\r\n\r\n",
        ] {
            let client = try RawClient(port: server.port)
            client.send(request)
            let answer = await Self.read(client, within: 30)
            #expect(answer.text.contains(" 200 ") && answer.closed, "\(request): \(answer)")
        }
        // Answers say what becomes of their connection (RFC 9112 9.3, 9.6): kept for an
        // HTTP/1.0 client that asked, closed after an HTTP/1.0 one that did not, or after a
        // request that said close.
        let kept = try RawClient(port: server.port)
        kept.send(
            "GET /health HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /health HTTP/1.0\r\n\r\n"
                + "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        )
        let two = await Self.read(kept, within: 30)
        let heads = two.text.lowercased().components(separatedBy: "http/1.1 200").dropFirst()
        #expect(two.closed && heads.count == 2, "\(two)")
        #expect(heads.first?.contains("connection: keep-alive") == true, "\(two)")
        #expect(heads.dropFirst().first?.contains("connection: close") == true, "\(two)")
        let closing = try RawClient(port: server.port)
        closing.send("GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let closed = await Self.read(closing, within: 30)
        #expect(closed.closed && closed.text.lowercased().contains("connection: close"), "\(closed)")
        // `close` in any case, in a list or in a second field, is a close too: the request
        // pipelined after it is not answered (it was, and then a 400 came).
        for field in ["CLOSE", "Close", "keep-alive, close", "keep-alive\r\nConnection: close", "close, TE"] {
            let client = try RawClient(port: server.port)
            client.send(
                "GET /health HTTP/1.1\r\nHost: x\r\nConnection: \(field)\r\n\r\nGET /health HTTP/1.1\r\nHost: x\r\n\r\n"
            )
            let answer = await Self.read(client, within: 30)
            let answers = answer.text.components(separatedBy: "HTTP/1.1 ").count - 1
            #expect(answer.closed && answers == 1 && answer.text.hasPrefix("HTTP/1.1 200"), "\(field): \(answer)")
        }
        // Host values that are a host and port.
        for host in ["localhost:8080", "127.0.0.1", "[v1.x]", "xn--bcher-kva.example", "a%2Db"] {
            let client = try RawClient(port: server.port)
            client.send("GET /health HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n")
            let answer = await Self.read(client, within: 30)
            #expect(answer.text.hasPrefix("HTTP/1.1 200"), "\(host): \(answer)")
        }
        #expect(try await server.get("/health").status == 200)
        #expect(await server.stop() == 0)
    }

    /// RFC 9110 10.1.1: `Expect: 100-continue` is answered at once (a client waits for it
    /// before sending its body), alone or in a list of expectations, but not on HTTP/1.0; a path's percent-encoded letters are
    /// the letters; CONNECT (no route tunnels) is a 405 on a connection that closes.
    @Test func aBodyThatWaitsForContinueIsToldToComeAndConnectIsRefused() async throws {
        let server = try await ServerProcess.writableDemo()
        defer { server.removeData() }
        let body = #"{"data": {"player": "p", "points": 1, "reason": "r", "created_at": "2026-11-25T10:00:00Z"}}"#
        for (version, expect) in [("1.1", "100-continue"), ("1.1", "x-later, 100-Continue"), ("1.0", "100-continue")] {
            let client = try RawClient(port: server.port)
            client.send(
                "POST /lists/transactions/items HTTP/\(version)\r\nHost: localhost\r\nExpect: \(expect)\r\n"
                    + "Authorization: Bearer t\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
                    + "Connection: close\r\n\r\n"
            )
            // Up to 5 s for the interim answer (10 on 1.0, where none must come).
            var interim = ""
            for _ in 0..<(version == "1.1" ? 5 : 2) where !interim.contains("\r\n\r\n") {
                interim += await client.read(within: 1) ?? ""
            }
            #expect(interim.hasPrefix("HTTP/1.1 100 Continue\r\n") == (version == "1.1"), "\(expect): \(interim)")
            client.send(body)
            let answer = interim + (await Self.readUntilClosed(client, within: 10))
            #expect(answer.contains("HTTP/1.1 201 Created\r\n"), "\(version): \(answer)")
        }
        // A body declared over the limit is not asked for: `413` at once, and the connection
        // closes (it was `100 Continue`, then `413` once the client had sent 5 MB); nor is a
        // write's without a token (`401`), nor one of another media type than JSON (`415`),
        // nor a `PUT`'s part (`400`, RFC 9110 14.5).
        let (json, token) = ("Content-Type: application/json\r\n", "Authorization: Bearer t\r\n")
        for (head, status) in [
            ("PUT /lists/transactions/items/big", "\(token)\(json)Content-Length: 5000000", 413),
            ("POST /lists/transactions/items", "\(json)Content-Length: \(body.utf8.count)", 401),
            ("POST /lists/transactions/items", "\(token)Content-Type: text/csv\r\nContent-Length: 9", 415),
            ("PATCH /lists/transactions/items/1", "\(token)Content-Length: 9", 415),
            ("PUT /lists/transactions/items/1", "\(token)\(json)Content-Range: bytes 0-8/20\r\nContent-Length: 9", 400),
        ].map({ ("\($0.0) HTTP/1.1\r\nHost: localhost\r\n\($0.1)\r\n", $0.2) }) {
            let client = try RawClient(port: server.port)
            client.send(head + "Expect: 100-continue\r\n\r\n")
            let refused = await Self.read(client, within: 5)
            #expect(refused.closed && refused.text.hasPrefix("HTTP/1.1 \(status) "), "\(refused)")
        }
        // RFC 3986 6.2.2.2: percent-encoded letters, digits, `-`, `_`, `~` are the characters
        // themselves, in fixed segments too; `%2F` is not one (no such route).
        for (path, status) in [
            ("/h%65alth", 200), ("/lists/transactions/%69tems?limit=1", 200), ("/%6Cists/transactions/s%65ctions", 200),
            ("/lists/transactions%2Fitems", 404),
        ] {
            let client = try RawClient(port: server.port)
            client.send("GET \(path) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            let answer = await Self.readUntilClosed(client, within: 10)
            #expect(answer.hasPrefix("HTTP/1.1 \(status) "), "\(path): \(answer.prefix(60))")
        }
        let tunnel = try RawClient(port: server.port)
        tunnel.send("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
        let refused = await Self.read(tunnel, within: 5)
        #expect(refused.closed && refused.text.hasPrefix("HTTP/1.1 405 "), "\(refused)")
        #expect(refused.text.lowercased().contains("allow: get, head, options"), "\(refused)")
        // RFC 9110 9.3.7: `OPTIONS *` asks about the server: every method some route serves.
        let asterisk = try RawClient(port: server.port)
        asterisk.send("OPTIONS * HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        let options = await Self.readUntilClosed(asterisk, within: 10)
        #expect(options.hasPrefix("HTTP/1.1 204 "), "\(options)")
        #expect(options.lowercased().contains("allow: get, head, options, post, put, patch, delete"), "\(options)")
        #expect(try await server.get("/health").status == 200)
        #expect(await server.stop() == 0)
    }

    @Test func aChunkedBodyOverTheLimitIs413AndStoresNothing() async throws {
        let server = try await ServerProcess(
            arguments: ["--demo-transactions", "10"],
            environment: ["DATA_MEDIATOR_WRITE_TOKENS": "t", "DATA_MEDIATOR_MAX_BODY_BYTES": "4096"]
        )
        defer { server.removeData() }
        let before = try await server.json("/lists/transactions/items?limit=1")["version"] as? String
        // No Content-Length: the size is known only once 4,096 bytes have been read.
        let body =
            #"{"data": {"player": "ana", "points": 1, "reason": ""# + String(repeating: "x", count: 10_000) + #""}}"#
        let chunks = stride(from: 0, to: body.utf8.count, by: 1000).map { start in
            let piece = String(body.utf8.dropFirst(start).prefix(1000))!
            return String(piece.utf8.count, radix: 16) + "\r\n" + piece + "\r\n"
        }
        let client = try RawClient(port: server.port)
        client.send(
            RawClient.transactionWrite(length: nil, fields: "Transfer-Encoding: chunked\r\n") + chunks.joined()
                + "0\r\n\r\n"
        )
        let answer = try #require(await client.readAnswer(within: 10), "no answer")
        let problem = try Self.problem(in: answer[...])
        #expect(problem.status == 413, "\(answer)")
        #expect(problem.body["type"] as? String == "/problems/body-too-large")
        // A chunk size that is not hexadecimal is the client's framing: 400, not 500.
        let broken = try RawClient(port: server.port)
        broken.send(
            "POST /lists/transactions/items HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer t\r\n"
                + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n"
        )
        let refused = try #require(await broken.readAnswer(within: 10), "no answer")
        let framing = try Self.problem(in: refused[...])
        #expect(framing.status == 400, "\(refused)")
        // The parser cannot find a next request after it: the answer says it closes.
        #expect(framing.headers.contains("connection: close"), "\(refused)")
        #expect(await broken.read(within: 5) == "", "the connection stayed open")
        #expect(framing.body["type"] as? String == "/problems/bad-request")
        #expect(try await server.json("/lists/transactions/items?limit=1")["version"] as? String == before)
        #expect(await server.stop() == 0)
    }
}
