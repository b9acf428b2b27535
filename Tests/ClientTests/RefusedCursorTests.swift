import DataMediatorClient
import DataMediatorTesting
import Foundation
import Synchronization
import Testing

/// A transport that spoils the next `cursor` it sends (as a cursor signed with a secret
/// the server no longer has), so the server answers `400 bad-cursor`.
final class SpoilingTransport: StreamsPassThrough {
    let inner: URLSessionTransport
    let spoil = Mutex(0)

    init(_ inner: URLSessionTransport) { self.inner = inner }

    func get(path: String, query: [(String, String)], headers: [String: String]) async throws -> TransportAnswer {
        let spoiled = spoil.withLock { count in
            guard count > 0, query.contains(where: { $0.0 == "cursor" }) else { return false }
            count -= 1
            return true
        }
        let sent = spoiled ? query.map { $0.0 == "cursor" ? ($0.0, "x" + $0.1) : $0 } : query
        return try await inner.get(path: path, query: sent, headers: headers)
    }
}

/// A cursor the server refuses does not leave a session stuck: it reloads, and pages on.
@Suite struct RefusedCursorTests {
    @Test func aRefusedCursorReloadsTheSessionWhichPagesOn() async throws {
        let server = try await Live.demo(300)
        defer { server.removeData() }
        let transport = SpoilingTransport(URLSessionTransport(baseURL: try #require(URL(string: server.base))))
        let session = ListSession(configuration: Live.configuration(limit: 50), transport: transport)
        try await session.loadFirstPage()
        transport.spoil.withLock { $0 = 1 }
        #expect(try await session.loadMore())
        #expect(await session.statistics.reloads == 1)
        // The page asked for is loaded too, by the new cursors.
        #expect(await session.snapshot.items.count == 100)
        while try await session.loadMore() {}
        #expect((await session.snapshot).sections == (try await Live.walk(server)).sections)
        // The error a refused cursor would have been names its problem.
        let answer = try await URLSessionTransport(baseURL: try #require(URL(string: server.base)))
            .get(path: "/lists/transactions/items", query: [("cursor", "x")], headers: [:])
        let error = ListClientError.answered(answer.status, body: answer.body)
        #expect(error.problem == "bad-cursor" && error.status == 400 && !error.message.contains("{"))
        #expect(await server.stop() == 0)
    }

    /// Earlier pages too: a refused `prev` loads the page before what was held, keeping it.
    @Test func aRefusedEarlierCursorStillLoadsTheEarlierPage() async throws {
        let server = try await Live.demo(300)
        defer { server.removeData() }
        let transport = SpoilingTransport(URLSessionTransport(baseURL: try #require(URL(string: server.base))))
        let session = ListSession(configuration: Live.configuration(limit: 20), transport: transport)
        let walk = try await Live.walk(server).items.map(\.id)
        try await session.open(around: walk[150])
        let held = await session.snapshot.items.map(\.id)
        transport.spoil.withLock { $0 = 1 }
        #expect(try await session.loadEarlier())
        let now = await session.snapshot.items.map(\.id)
        let first = try #require(walk.firstIndex(of: held[0]))
        #expect(Set(held).isSubset(of: Set(now)), "what was held was dropped: \(held) -> \(now)")
        #expect(now.first.flatMap { walk.firstIndex(of: $0) } == first - 20, "\(now)")
        #expect(await server.stop() == 0)
    }
}
