import DataMediatorTesting
import Foundation
import Testing

/// A write whose body comes slowly holds no turn of its client's writes: its body is read
/// before its turn, so another write of the same token is answered at once, not after the
/// slow body's time limit (probe 49: a write waited 28 s behind four slow bodies sent with
/// its token).
@Suite struct SlowBodyLineTests {
    static let token = "a-write-token-for-slow-bodies"
    static let item = #"{"data": {"player": "ana", "points": 3, "reason": "r", "created_at": "2026-11-19T21:04:00Z"}}"#

    /// The demo taking writes with ``token``, a body limit of 30 s, and `settings`.
    static func server(_ settings: [String: String]) async throws -> ServerProcess {
        try await ServerProcess(
            arguments: ["--demo-transactions", "10"],
            environment: settings.merging(
                ["DATA_MEDIATOR_WRITE_TOKENS": token, "DATA_MEDIATOR_REQUEST_BODY_TIMEOUT_SECONDS": "30"]
            ) { own, _ in own }
        )
    }

    /// With `Expect: 100-continue` too (curl sends it for large bodies): its body was read
    /// inside its turn (review 111 #3: four such writes held another program's write of the
    /// same token 28 s).
    @Test(.timeLimit(.minutes(2)), arguments: [false, true])
    func aSlowBodyHoldsNoTurnOfItsClientsWrites(expectsContinue: Bool) async throws {
        let server = try await Self.server(["DATA_MEDIATOR_CLIENT_WRITES": "1"])
        defer { server.removeData() }
        let slow = try RawClient(port: server.port)
        let half = Self.item.utf8.count / 2
        let head = RawClient.transactionWrite(
            length: Self.item.utf8.count,
            fields: expectsContinue ? "Expect: 100-continue\r\n" : "",
            token: Self.token
        )
        if expectsContinue {
            slow.send(head)
            let interim = await slow.readAnswer(within: 10)
            #expect(interim?.hasPrefix("HTTP/1.1 100") == true, "\(interim ?? "nothing")")
            slow.send(String(Self.item.prefix(half)))
        } else {
            slow.send(head + String(Self.item.prefix(half)))
        }
        try await Task.sleep(for: .milliseconds(500))
        let start = ContinuousClock.now
        let created = try await server.send(
            "POST",
            "/lists/transactions/items",
            headers: ["Authorization": "Bearer \(Self.token)", "Content-Type": "application/json"],
            body: Self.item
        )
        let took = ContinuousClock.now - start
        #expect(created.status == 201)
        #expect(took < .seconds(15), "the write waited \(took) behind a slow body of its token")
        // The slow one is written once its body has come.
        slow.send(String(Self.item.dropFirst(half)))
        #expect(await slow.readAnswer(within: 20)?.hasPrefix("HTTP/1.1 201") == true)
        #expect(await server.stop() == 0)
    }

    /// The `408` the connection's guard writes (below the router) lets a script of a
    /// configured origin read it, as the routes' answers do: without the CORS fields a
    /// browser showed a network error (review 105 #5).
    @Test(.timeLimit(.minutes(2))) func aLateBodysAnswerCarriesTheCORSFields() async throws {
        let server = try await ServerProcess(
            arguments: ["--demo-transactions", "10"],
            environment: [
                "DATA_MEDIATOR_WRITE_TOKENS": Self.token, "DATA_MEDIATOR_REQUEST_BODY_TIMEOUT_SECONDS": "2",
                "DATA_MEDIATOR_CORS_ORIGINS": "https://app.example",
            ]
        )
        defer { server.removeData() }
        for (origin, taken) in [("https://app.example", true), ("https://other.example", false)] {
            let stalled = try RawClient(port: server.port)
            stalled.send(
                RawClient.transactionWrite(
                    length: Self.item.utf8.count,
                    fields: "Origin: \(origin)\r\n",
                    token: Self.token
                ) + #"{"data": "#
            )
            let answer = try #require(await stalled.readAnswer(within: 20))
            #expect(answer.hasPrefix("HTTP/1.1 408"), "\(answer)")
            let allowed = answer.lowercased().contains("access-control-allow-origin: \(origin)")
            #expect(allowed == taken, "\(origin): \(answer)")
            #expect(answer.lowercased().contains("access-control-expose-headers: link") == taken, "\(answer)")
        }
        #expect(await server.stop() == 0)
    }

    /// A write whose body stops coming is answered `408` within the idle limit when that is
    /// the shorter: the framework's idle close cut it with no answer first (probe 52: closed
    /// at 20 s, idle limit 20 s, body limit 30 s, the log saying 400).
    @Test(.timeLimit(.minutes(2))) func aStalledBodyIsAnswered408WithinAShorterIdleLimit() async throws {
        let server = try await Self.server(["DATA_MEDIATOR_IDLE_TIMEOUT_SECONDS": "3"])
        defer { server.removeData() }
        let stalled = try RawClient(port: server.port)
        stalled.send(
            RawClient.transactionWrite(length: Self.item.utf8.count, token: Self.token) + #"{"data": "#
        )
        let answer = await stalled.readAnswer(within: 20)
        #expect(answer?.hasPrefix("HTTP/1.1 408") == true, "\(answer ?? "no answer")")
        #expect(await server.stop() == 0)
    }
}
