import DataMediatorClient
import DataMediatorTesting
import Foundation
import Synchronization
import Testing

/// A transport whose event streams fail at once with `error` (its pages come from `inner`),
/// recording when each was opened; or, with `garbage`, whose first stream brings one event
/// no session can read and then passes the server's on.
final class FailingStreamsTransport: ListTransport {
    let inner: URLSessionTransport?
    let error: ListClientError?
    let opened = Mutex<[ContinuousClock.Instant]>([])

    init(_ inner: URLSessionTransport? = nil, error: ListClientError?) {
        self.inner = inner
        self.error = error
    }

    func get(path: String, query: [(String, String)], headers: [String: String]) async throws -> TransportAnswer {
        guard let inner else {
            // A one-item list at version 1 with nothing after it.
            let page =
                #"{"list": "l", "view": "v", "limit": 5, "version": "1", "next": null, "prev": null, "sections": [{"id": "s", "kind": "items", "title": null, "continues": false, "items": [{"id": "1", "type": "t", "rev": "1", "data": {}}]}]}"#
            return TransportAnswer(status: 200, body: Array(page.utf8))
        }
        return try await inner.get(path: path, query: query, headers: headers)
    }

    func events(
        path: String,
        query: [(String, String)],
        headers: [String: String]
    ) -> AsyncThrowingStream<ServerSentEvent, any Error> {
        let count = opened.withLock { opened in
            opened.append(.now)
            return opened.count
        }
        if let error { return AsyncThrowingStream { $0.finish(throwing: error) } }
        guard let inner, count > 1 else {
            return AsyncThrowingStream { continuation in
                continuation.yield(ServerSentEvent(type: "insert", data: "{not json", id: "2"))
                continuation.finish()
            }
        }
        return inner.events(path: path, query: query, headers: headers)
    }
}

/// A session that cannot follow its list's events waits longer after each failure in a row,
/// never less than the server's `Retry-After`, and reloads on an event it cannot read
/// instead of reading it again forever.
@Suite struct ReconnectTests {
    /// Follows with `transport` until it opened `count` streams (or a minute passed);
    /// returns when each was opened. Only lower bounds of the gaps are checked: a loaded
    /// machine makes waits longer, never shorter.
    static func follow(_ transport: FailingStreamsTransport, until count: Int) async throws -> [ContinuousClock.Instant]
    {
        let session = ListSession(
            configuration: ListSessionConfiguration(list: "l", reconnectDelay: .milliseconds(50)),
            transport: transport
        )
        try await session.loadFirstPage()
        let follower = Task { try await session.follow() }
        let deadline = ContinuousClock.now + .seconds(60)
        while transport.opened.withLock({ $0.count }) < count, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        follower.cancel()
        _ = await follower.result
        return transport.opened.withLock { Array($0.prefix(count)) }
    }

    @Test func failuresInARowWaitLongerEachTime() async throws {
        let transport = FailingStreamsTransport(error: ListClientError(.transport, message: "down"))
        let times = try await Self.follow(transport, until: 4)
        try #require(times.count == 4)
        // 50 ms, then 100, then 200 (each up to a quarter more); a fixed delay: 50 each.
        let gaps = zip(times, times.dropFirst()).map { $1 - $0 }
        for (index, gap) in gaps.enumerated() {
            #expect(gap >= .milliseconds(50 << index) * 0.95, "gap \(index): \(gap)")
        }
    }

    @Test func retryAfterIsWaitedFor() async throws {
        var busy = ListClientError.answered(503, body: [], retryAfter: "1")
        #expect(busy.retryAfter == .seconds(1))
        busy = ListClientError.answered(
            503,
            body: Array(#"{"type": "/problems/too-many-streams", "detail": "busy"}"#.utf8),
            retryAfter: "1"
        )
        #expect(busy.problem == "too-many-streams")
        let times = try await Self.follow(FailingStreamsTransport(error: busy), until: 2)
        try #require(times.count == 2)
        #expect(times[1] - times[0] >= .milliseconds(990))
    }

    @Test func anEventThatCannotBeReadReloadsAndTheSessionFollowsOn() async throws {
        let server = try await Live.demo(100)
        defer { server.removeData() }
        let transport = FailingStreamsTransport(
            URLSessionTransport(baseURL: try #require(URL(string: server.base))),
            error: nil
        )
        let session = ListSession(configuration: Live.configuration(limit: 200), transport: transport)
        try await session.loadFirstPage()
        let follower = Task { try await session.follow() }
        try await Live.randomWrites(
            5,
            on: server,
            ids: (await session.snapshot).items.map(\.id),
            days: try Live.days(of: await session.snapshot),
            seed: 3
        )
        try await Live.wait(for: session, toReach: try await Live.version(of: server))
        follower.cancel()
        _ = await follower.result
        // Titles of sections that changes made are looked up when published; one more
        // publish retries any a busy server refused.
        try await session.catchUp()
        #expect(await session.statistics.reloads == 1)
        #expect(transport.opened.withLock { $0.count } == 2)
        #expect((await session.snapshot).sections == (try await Live.walk(server)).sections)
        #expect(await server.stop() == 0)
    }
}
