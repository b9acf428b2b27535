import DataMediatorClient
import DataMediatorTesting
import Foundation
import Synchronization
import Testing

/// A transport that makes one write just before the next page it reads by cursor, once
/// armed: a reload meets a write between two of its pages.
final class WritingTransport: StreamsPassThrough {
    let inner: URLSessionTransport
    let server: ServerProcess
    let armed = Mutex(false)

    init(_ inner: URLSessionTransport, server: ServerProcess) {
        self.inner = inner
        self.server = server
    }

    func get(path: String, query: [(String, String)], headers: [String: String]) async throws -> TransportAnswer {
        let write = armed.withLock { armed in
            guard armed, query.contains(where: { $0.0 == "cursor" }) else { return false }
            armed = false
            return true
        }
        if write {
            _ = try await server.send(
                "POST",
                "/lists/transactions/items",
                headers: ["Authorization": "Bearer \(Live.token)", "Content-Type": "application/json"],
                body:
                    #"{"data": {"player": "p1", "points": 5, "reason": "reload test", "created_at": "2026-11-19T10:00:00Z"}}"#
            )
        }
        return try await inner.get(path: path, query: query, headers: headers)
    }
}

/// A reload holds what the session held: a write that cuts one short (every write to a list
/// over a query is a `reload`) does not shrink the next, and a session scrolled away from
/// the start is read again where it was, not half a page higher.
@Suite struct ReloadExtentTests {
    @Test func aReloadCutShortByAWriteDoesNotShrinkTheNext() async throws {
        let server = try await Live.demo(300)
        defer { server.removeData() }
        let transport = WritingTransport(
            URLSessionTransport(baseURL: try #require(URL(string: server.base))),
            server: server
        )
        let configuration = ListSessionConfiguration(list: "highscore", view: "top", limit: 3)
        let session = ListSession(configuration: configuration, transport: transport)
        try await session.loadFirstPage()
        for _ in 0..<5 { #expect(try await session.loadMore()) }
        #expect(await session.snapshot.items.count == 18)
        transport.armed.withLock { $0 = true }
        try await session.refresh()
        #expect(await session.snapshot.items.count < 18, "the write did not cut the reload short")
        try await session.refresh()
        #expect(await session.snapshot.items.count == 18)
        #expect(await server.stop() == 0)
    }

    @Test func aScrolledSessionIsReadAgainWhereItWas() async throws {
        let server = try await Live.demo(300)
        defer { server.removeData() }
        let walk = try await Live.walk(server).items.map(\.id)
        let session = ListSession(
            baseURL: try #require(URL(string: server.base)),
            configuration: Live.configuration(limit: 10)
        )
        try await session.open(around: walk[100])
        #expect(try await session.loadMore())
        let held = await session.snapshot.items.map(\.id)
        for _ in 0..<3 {
            try await session.refresh()
            #expect(await session.snapshot.items.map(\.id) == held)
        }
        #expect(await server.stop() == 0)
    }
}

/// A reload of a session that was not at the start reads the page that starts where it
/// did: by the page size the server used when the configuration names none, and from a
/// held item further down when the one it reads around is gone (probe 26).
extension ReloadExtentTests {
    @Test func aReloadWithTheServersPageSizeStartsWhereTheSessionDid() async throws {
        let server = try await Live.demo(1000)
        defer { server.removeData() }
        let walk = try await Live.walk(server)
        let target = walk.items[500].id
        let cursor = try #require(
            try await server.json("/lists/transactions/items/\(target)?view=chronological")["cursor"] as? String
        )
        let session = ListSession(
            baseURL: try #require(URL(string: server.base)),
            configuration: ListSessionConfiguration(list: "transactions", view: "chronological")
        )
        try await session.open(cursor: cursor)
        #expect(await session.snapshot.items.first?.id == target)
        try await session.refresh()
        #expect(await session.snapshot.items.first?.id == target, "not half a page higher")
        try await session.refresh()
        #expect(await session.snapshot.items.first?.id == target)
        #expect(await server.stop() == 0)
    }

    @Test func aReloadWhoseAnchorWentReadsAroundTheNextHeldItem() async throws {
        let server = try await Live.demo(1000)
        defer { server.removeData() }
        let walk = try await Live.walk(server)
        let cursor = try #require(
            try await server.json("/lists/transactions/items/\(walk.items[300].id)?view=chronological")["cursor"]
                as? String
        )
        let session = try Live.session(on: server, limit: 20)
        try await session.open(cursor: cursor)
        try await session.loadMore()
        let held = await session.snapshot.items
        // The item a reload reads around (half a page below the first) goes; the session
        // has not read that.
        _ = try await Live.send("DELETE", "/lists/transactions/items/\(held[9].id)", nil, on: server)
        try await session.refresh()
        let reloaded = await session.snapshot
        #expect(reloaded.hasMoreBefore, "not the top of the list")
        let first = try #require(reloaded.items.first?.id)
        #expect(held.prefix(3).map(\.id).contains(first), "\(first) is not near \(held[0].id)")
        #expect(await server.stop() == 0)
    }
}
