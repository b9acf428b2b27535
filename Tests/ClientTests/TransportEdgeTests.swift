import DataMediatorClient
import DataMediatorTesting
import Foundation
import Synchronization
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A transport that fails its first `failing` GETs as a network that is down does, and
/// records the headers of every GET; the rest go to the server.
final class FlakyTransport: StreamsPassThrough {
    let inner: URLSessionTransport
    let failing: Int
    let sent = Mutex<[[String: String]]>([])

    init(_ inner: URLSessionTransport, failing: Int) {
        self.inner = inner
        self.failing = failing
    }

    func get(path: String, query: [(String, String)], headers: [String: String]) async throws -> TransportAnswer {
        let count = sent.withLock { sent in
            sent.append(headers)
            return sent.count
        }
        if count <= failing { throw ListClientError(.transport, message: "the network is down (test)") }
        return try await inner.get(path: path, query: query, headers: headers)
    }
}

/// A transport that answers every GET with one fixed answer.
struct FixedAnswerTransport: StreamsNothing {
    let answer: TransportAnswer

    func get(path: String, query: [(String, String)], headers: [String: String]) async throws -> TransportAnswer {
        answer
    }
}

/// What the kit does with what a real network and real apps bring: letters outside ASCII,
/// an app's own `URLSession` settings, answers that ask to wait, a network that is down for
/// a while, a list that can only say `reload`.
@Suite struct TransportEdgeTests {
    @Test func idsAndParametersOutsideASCIIArePercentEncoded() async throws {
        let server = try await Live.demo(100)
        defer { server.removeData() }
        let base = try #require(URL(string: server.base))
        let session = ListSession(baseURL: base, configuration: Live.configuration())
        // Raw, `é` and `日` made URLComponents trap: the process died.
        await #expect(throws: ListClientError.self) { try await session.open(around: "Zürich/1 é 日") }
        do {
            try await session.open(around: "Zürich/1 é 日")
        } catch let error as ListClientError {
            #expect(error.status == 404 && error.problem == "unknown-item", "\(error)")
        }
        let player = ListSession(
            baseURL: base,
            configuration: ListSessionConfiguration(
                list: "transactions",
                view: "by_player",
                parameters: ["player": "José"]
            )
        )
        try await player.loadFirstPage()
        #expect(await player.snapshot.items.isEmpty)
        #expect(await server.stop() == 0)
    }

    @Test func eventStreamsGoThroughTheAppsSessionSettings() async throws {
        let server = try await ServerProcess(
            arguments: ["--demo-transactions", "100"],
            environment: [
                "DATA_MEDIATOR_WRITE_TOKENS": Live.token, "DATA_MEDIATOR_READ_TOKENS": "reader",
                "DATA_MEDIATOR_HEARTBEAT_SECONDS": "1",
            ]
        )
        defer { server.removeData() }
        // The token only in the app's session configuration, as an app that signs in sets it.
        let settings = URLSessionConfiguration.ephemeral
        settings.httpAdditionalHeaders = ["Authorization": "Bearer reader"]
        let transport = URLSessionTransport(
            baseURL: try #require(URL(string: server.base)),
            session: URLSession(configuration: settings)
        )
        let session = ListSession(configuration: Live.configuration(limit: 200), transport: transport)
        try await session.loadFirstPage()
        let follower = Task { try await session.follow() }
        let loaded = await session.snapshot
        try await Live.randomWrites(
            3,
            on: server,
            ids: loaded.items.map(\.id),
            days: try Live.days(of: loaded),
            seed: 5
        )
        // The stream had no token before: a 401, and follow() threw.
        let page = try await server.get(
            "/lists/transactions/items?limit=1",
            headers: ["Authorization": "Bearer \(Live.token)"]
        )
        let current = try JSONSerialization.jsonObject(with: Data(page.body)) as? [String: Any]
        try await Live.wait(for: session, toReach: try #require(Int64(current?["version"] as? String ?? "")))
        follower.cancel()
        _ = await follower.result
        #expect(await session.statistics.changesApplied >= 3)
        #expect(await server.stop() == 0)
    }

    @Test func aStreamThatIsNotAnEventStreamIsATransportFailure() async throws {
        let server = try await Live.demo(100)
        defer { server.removeData() }
        let transport = URLSessionTransport(baseURL: try #require(URL(string: server.base)))
        do {
            for try await event in transport.events(path: "/health", query: [], headers: [:]) {
                Issue.record("parsed an event out of JSON: \(event)")
            }
            Issue.record("the stream ended as if the server had closed it")
        } catch let error as ListClientError {
            #expect(error.code == .transport && error.message.contains("not text/event-stream"), "\(error)")
        }
        #expect(await server.stop() == 0)
    }

    /// A reader that does not keep up is not followed into unbounded memory: the stream
    /// holds `streamBuffer` events, then ends with a transport error after them; a session
    /// on such a transport reconnects and still ends up with every write.
    @Test func aStreamHoldsABoundedNumberOfEventsForASlowReader() async throws {
        let server = try await Live.demo(100)
        defer { server.removeData() }
        let transport = URLSessionTransport(baseURL: try #require(URL(string: server.base)), streamBuffer: 5)
        let version = try await Live.version(of: server)
        let stream = transport.events(
            path: "/lists/transactions/events",
            query: [],
            headers: ["Last-Event-ID": String(version)]
        )
        let first = try await server.json("/lists/transactions/items?limit=30")
        let ids = ((first["sections"] as? [[String: Any]]) ?? []).flatMap { ($0["items"] as? [[String: Any]]) ?? [] }
            .compactMap { $0["id"] as? String }
        try await Live.randomWrites(20, on: server, ids: ids, days: try Live.days(of: Live.walk(server)), seed: 11)
        // Nothing read while the writes went on: at most five are held.
        try await Task.sleep(for: .milliseconds(500))
        var read = 0
        do {
            for try await event in stream where event.type != "message" { read += 1 }
            Issue.record("the stream ended without an error")
        } catch let error as ListClientError {
            #expect(error.code == .transport && error.message.contains("fell behind"), "\(error)")
        }
        #expect(read <= 5, "\(read)")
        // A session with such a buffer still reaches the last write.
        let session = ListSession(configuration: Live.configuration(limit: 200), transport: transport)
        try await session.loadFirstPage()
        let follower = Task { try await session.follow() }
        try await Live.write(30, on: server, followedBy: session, follower, seed: 13)
        while try await session.loadMore() {}
        let held = await session.snapshot.sections.map { [$0.id] + $0.items.map(\.id) }
        #expect(held == (try await Live.walk(server)).sections.map { [$0.id] + $0.items.map(\.id) })
        #expect(await server.stop() == 0)
    }

    @Test func followLoadsAndFollowsOnAfterTheNetworkWasDownAtFirst() async throws {
        let server = try await Live.demo(100)
        defer { server.removeData() }
        let transport = FlakyTransport(URLSessionTransport(baseURL: try #require(URL(string: server.base))), failing: 3)
        let session = ListSession(configuration: Live.configuration(limit: 200), transport: transport)
        // Nothing loaded yet and the first GETs fail: follow() used to throw at once.
        let follower = Task { try await session.follow() }
        let deadline = ContinuousClock.now + .seconds(60)
        while await session.snapshot.items.isEmpty, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(!(await session.snapshot.items.isEmpty))
        try await Live.write(3, on: server, followedBy: session, follower, seed: 7)
        #expect(transport.sent.withLock { $0.count } > 3)
        #expect(await server.stop() == 0)
    }

    @Test func anAnswerThatAsksToWaitSaysHowLong() async throws {
        let busy = TransportAnswer(
            status: 429,
            body: Array(#"{"type": "/problems/too-many-requests", "title": "Too many requests"}"#.utf8),
            headers: ["Retry-After": "3"]
        )
        let session = ListSession(
            configuration: ListSessionConfiguration(list: "transactions"),
            transport: FixedAnswerTransport(answer: busy)
        )
        do {
            try await session.loadFirstPage()
            Issue.record("a 429 loaded a page")
        } catch let error as ListClientError {
            #expect(error.retryAfter == .seconds(3) && error.problem == "too-many-requests", "\(error)")
            #expect(error.message == "HTTP 429: Too many requests")
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let date = formatter.string(from: Date().addingTimeInterval(30))
        let wait = try #require(ListClientError.answered(503, body: [], retryAfter: date).retryAfter)
        #expect(wait > .seconds(25) && wait <= .seconds(31), "\(wait)")
        // A proxy's HTML page is not a message to show.
        let proxy = ListClientError.answered(502, body: Array("<html><body>Bad Gateway</body></html>".utf8))
        #expect(proxy.message == "HTTP 502")
    }

    @Test func aFreshHeaderReplacesOneOfTheSameNameInAnyCase() async throws {
        let server = try await Live.demo(100)
        defer { server.removeData() }
        let transport = FlakyTransport(URLSessionTransport(baseURL: try #require(URL(string: server.base))), failing: 0)
        var configuration = Live.configuration()
        configuration.headers = ["authorization": "Bearer old", "X-App": "1"]
        configuration.freshHeaders = { ["Authorization": "Bearer new"] }
        let session = ListSession(configuration: configuration, transport: transport)
        try await session.loadFirstPage()
        let sent = try #require(transport.sent.withLock { $0.first })
        #expect(sent == ["Authorization": "Bearer new", "X-App": "1"])
        #expect(await server.stop() == 0)
    }

    /// After a long absence, a backlog larger than what the session holds is not read
    /// whole into memory: past one answer's worth it reloads instead, and one full answer
    /// that says more follow is enough to know (1,500 were read whole and applied).
    @Test(arguments: [(1_000_000, 1, true), (1_500, 1, true), (1_000, 1, false), (800, 1, false)])
    func aBacklogLargerThanWhatIsHeldReloadsInsteadOfBeingRead(total: Int, answers: Int, reloads: Bool) async throws {
        let transport = BacklogTransport(total: total)
        let session = ListSession(configuration: ListSessionConfiguration(list: "l"), transport: transport)
        try await session.loadFirstPage()
        try await session.catchUp()
        #expect(transport.asked.withLock { $0.filter { $0 == "/lists/l/changes" }.count } == answers)
        #expect(await session.statistics.reloads == (reloads ? 1 : 0))
        #expect(await session.snapshot.version == Int64(total + 1))
    }

    /// A list over a query says `reload` for every write: a load-more after one reloads
    /// what was held and the page asked for, not the first page alone.
    @Test(arguments: ["limit", "view", "cursor", "around", "since"])
    func aParameterNamedAsTheRoutesOwnIsRefusedBeforeAnythingIsSent(name: String) async throws {
        let transport = BacklogTransport(total: 0)
        let configuration = ListSessionConfiguration(list: "l", parameters: ["game": "7", name: "5"])
        let session = ListSession(configuration: configuration, transport: transport)
        await #expect(throws: ListClientError.self) { try await session.loadFirstPage() }
        do {
            try await session.loadFirstPage()
        } catch let error as ListClientError {
            #expect(error.code == .badConfiguration && error.message.contains("'\(name)'"), "\(error)")
        }
        // follow() ends on it rather than trying again for ever (it is stopped after 10 s).
        let follower = Task { try await session.follow() }
        let stopper = Task {
            try await Task.sleep(for: .seconds(10))
            follower.cancel()
        }
        let ended = await follower.result
        stopper.cancel()
        #expect(throws: ListClientError.self) { try ended.get() }
        #expect(transport.asked.withLock { $0 }.isEmpty)
    }

    @Test func aListThatCanOnlySayReloadKeepsWhatWasLoaded() async throws {
        let server = try await Live.demo(100)
        defer { server.removeData() }
        let session = ListSession(
            baseURL: try #require(URL(string: server.base)),
            configuration: ListSessionConfiguration(list: "highscore", limit: 4)
        )
        try await session.loadFirstPage()
        try await session.loadMore()
        try await session.loadMore()
        #expect(await session.snapshot.items.count == 12)
        let headers = ["Content-Type": "application/json", "Authorization": "Bearer \(Live.token)"]
        let write = try await server.send(
            "POST",
            "/lists/transactions/items",
            headers: headers,
            body:
                #"{"data": {"player": "newcomer", "points": 5, "reason": "test", "created_at": "2026-11-20T10:00:00Z"}}"#
        )
        #expect(write.status == 201)
        try await session.loadMore()
        let held = await session.snapshot
        #expect(held.items.count == 16, "\(held.items.count)")
        #expect(await session.statistics.reloads == 1)
        // As a fresh walk has them.
        let walk = try await PlainWalk.snapshot(of: server, list: "highscore", view: nil, limit: 100)
        #expect(held.items.map(\.id) == Array(walk.items.map(\.id).prefix(16)))
        #expect(await server.stop() == 0)
    }
}

/// A server whose list has `total` changes since its first page (versions 2 on), 1,000 an
/// answer, and whose pages are empty; records the paths asked.
final class BacklogTransport: StreamsNothing {
    let total: Int
    let asked = Mutex<[String]>([])

    init(total: Int) { self.total = total }

    func get(path: String, query: [(String, String)], headers: [String: String]) async throws -> TransportAnswer {
        asked.withLock { $0.append(path) }
        guard path.hasSuffix("/changes") else {
            let version = asked.withLock { $0.count } > 1 ? total + 1 : 1
            let page = #"{"list":"l","view":"v","version":"\#(version)","sections":[],"next":null,"prev":null}"#
            return TransportAnswer(status: 200, body: Array(page.utf8))
        }
        let since = Int(query.first { $0.0 == "since" }?.1 ?? "") ?? 1
        let last = min(since + 1_000, total + 1)
        let next = last < total + 1 ? "\"\(last)\"" : "null"
        let changes = (since + 1...last).map { #"{"op":"delete","version":"\#($0)","id":"x\#($0)"}"# }
        let body =
            #"{"since":"\#(since)","version":"\#(total + 1)","changes":[\#(changes.joined(separator: ","))],"next":\#(next)}"#
        return TransportAnswer(status: 200, body: Array(body.utf8))
    }
}
