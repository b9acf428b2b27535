import DataMediatorClient
import DataMediatorTesting
import Foundation
import Synchronization
import Testing

/// A transport that, once armed, fails the next `GET` that carries a cursor, as a network
/// blip does.
final class CursorFailingTransport: StreamsPassThrough {
    let inner: URLSessionTransport
    let armed = Mutex(false)

    init(_ inner: URLSessionTransport) { self.inner = inner }

    func get(path: String, query: [(String, String)], headers: [String: String]) async throws -> TransportAnswer {
        let fail =
            query.contains { $0.0 == "cursor" }
            && armed.withLock { armed in
                defer { armed = false }
                return armed
            }
        if fail { throw ListClientError(.transport, message: "the network dropped (test)") }
        return try await inner.get(path: path, query: query, headers: headers)
    }
}

/// A reload that fails part way leaves the session as it was, a stream that keeps being
/// refused for a reload is not opened again at once, and a page that repeats an item is a
/// bad answer.
@Suite struct ReloadFailureTests {
    static let headers = ["Content-Type": "application/json", "Authorization": "Bearer \(Live.token)"]

    /// The audit's case: the server moves a held item right before another one and deletes
    /// the item its move was placed after; a refresh then reads its first page and fails on
    /// its second. Held and changed at one version, the session still catches up to what a
    /// fresh walk shows (it lost the moved item, which no page brought back, when its pages
    /// were at the new version and its version the old one).
    @Test func aRefreshThatFailsOnALaterPageLeavesTheSessionAsItWas() async throws {
        let server = try await Live.demo(300)
        defer { server.removeData() }
        let transport = CursorFailingTransport(URLSessionTransport(baseURL: try #require(URL(string: server.base))))
        let session = ListSession(configuration: Live.configuration(limit: 10), transport: transport)
        try await session.loadFirstPage()
        try await session.loadMore()
        try await session.loadMore()
        let before = await session.snapshot
        let (moved, anchor) = (before.items[12], before.items[3])
        let formatter = ISO8601DateFormatter()
        let at = try #require(anchor.data["created_at"]?.stringValue.flatMap(formatter.date(from:)))
        let start = try await Live.version(of: server)
        let patch = #"{"data": {"created_at": "\#(formatter.string(from: at.addingTimeInterval(-1)))"}}"#
        let patched = try await server.send(
            "PATCH",
            "/lists/transactions/items/\(moved.id)",
            headers: Self.headers,
            body: patch
        )
        #expect(patched.status == 200)
        let changes = try await server.json("/lists/transactions/changes?view=chronological&since=\(start)")
        let after = try #require((changes["changes"] as? [[String: Any]])?.first?["after"] as? String)
        let deleted = try await server.send("DELETE", "/lists/transactions/items/\(after)", headers: Self.headers)
        #expect(deleted.status == 204)

        transport.armed.withLock { $0 = true }
        await #expect(throws: ListClientError.self) { try await session.refresh() }
        #expect(await session.snapshot == before, "a failed reload changes nothing held")
        try await session.catchUp()
        let held = await session.snapshot
        let walk = try await Live.walk(server)
        #expect(held.item(id: moved.id) != nil, "the moved item is held")
        #expect(held.items.map(\.id) == Array(walk.items.map(\.id).prefix(held.itemCount)))
        while try await session.loadMore() {}
        #expect((await session.snapshot).items.map(\.id) == walk.items.map(\.id))
        _ = try await Live.checkUpdates(of: session)
        #expect(await server.stop() == 0)
    }

    /// A stream refused with `410` every time reloads, then waits as after a failure
    /// (longer each time in a row) before it opens the next: it opened hundreds a second.
    @Test func aStreamRefusedForAReloadEveryTimeIsNotOpenedAgainAtOnce() async throws {
        let transport = ScriptedStreamTransport("", endingWith: .answered(410, body: [], retryAfter: nil))
        let configuration = ListSessionConfiguration(list: "l", reconnectDelay: .milliseconds(200))
        let session = ListSession(configuration: configuration, transport: transport)
        let follower = Task { try await session.follow() }
        try await Task.sleep(for: .seconds(2))
        follower.cancel()
        _ = await follower.result
        // At 0, 0.2, 0.6, 1.4 s (with up to a quarter more each): at most 4 in 2 s.
        let opened = transport.opened
        #expect((1...5).contains(opened), "\(opened) streams in 2 s")
        #expect(await session.statistics.reloads == opened)
    }

    @Test func aPageThatRepeatsAnItemIsABadAnswer() async throws {
        let item = #"{"id":"a","type":"t","rev":"1","data":{}}"#
        let page = """
            {"list":"l","view":"v","version":"1","next":null,"prev":null,"sections":[
            {"id":"s","kind":"items","title":null,"continues":false,"items":[\(item),\(item)]}]}
            """
        let session = ListSession(
            configuration: ListSessionConfiguration(list: "l"),
            transport: FixedAnswerTransport(answer: TransportAnswer(status: 200, body: Array(page.utf8)))
        )
        do {
            try await session.loadFirstPage()
            Issue.record("a page with an item twice was taken")
        } catch let error as ListClientError {
            #expect(error.code == .badAnswer && error.message.contains("'a' comes twice"), "\(error)")
        }
    }
}
