import DataMediatorClient
import Synchronization
import Testing

/// A server whose pages of an empty list answer the versions given, in turn (the last one
/// from then on), and whose event stream sends `text` and then stays open, sending nothing.
final class VersionedPagesTransport: ListTransport {
    let versions: Mutex<[Int64]>
    let text: String

    init(versions: [Int64], stream text: String) {
        self.versions = Mutex(versions)
        self.text = text
    }

    func get(path: String, query: [(String, String)], headers: [String: String]) async throws -> TransportAnswer {
        emptyPage(at: versions.withLock { versions in versions.count > 1 ? versions.removeFirst() : versions[0] })
    }

    func events(
        path: String,
        query: [(String, String)],
        headers: [String: String]
    ) -> AsyncThrowingStream<ServerSentEvent, any Error> {
        openStream(sending: text)
    }
}

/// A page of an empty list (`l`, view `v`) at `version`, with no cursors.
func emptyPage(at version: Int64) -> TransportAnswer {
    let page = #"{"list":"l","view":"v","version":"\#(version)","sections":[],"next":null,"prev":null}"#
    return TransportAnswer(status: 200, body: Array(page.utf8))
}

/// An event stream that sends the events of `text`, then stays open, sending nothing.
func openStream(sending text: String) -> AsyncThrowingStream<ServerSentEvent, any Error> {
    var parser = ServerSentEventParser()
    let events = parser.feed(Array(text.utf8))
    return AsyncThrowingStream { continuation in
        for event in events { continuation.yield(event) }
    }
}

/// A load balancer over replicas that lag: the first page answers version 20, every page
/// after it `later` and `/changes` `changes`, however often asked; the first event stream
/// says `reload` at 25 and stays open; records each stream's `Last-Event-ID`.
final class LaggingEverywhereTransport: ListTransport {
    let later: Int64
    let changes: Int64
    let pages = Mutex(0)
    let resumedFrom = Mutex<[String?]>([])

    init(later: Int64, changes: Int64) {
        self.later = later
        self.changes = changes
    }

    func get(path: String, query: [(String, String)], headers: [String: String]) async throws -> TransportAnswer {
        if path.hasSuffix("/changes") {
            return TransportAnswer(
                status: 200,
                body: Array(#"{"version":"\#(changes)","changes":[],"next":null}"#.utf8)
            )
        }
        return emptyPage(
            at: pages.withLock { pages in
                pages += 1
                return pages == 1 ? 20 : later
            }
        )
    }

    func events(
        path: String,
        query: [(String, String)],
        headers: [String: String]
    ) -> AsyncThrowingStream<ServerSentEvent, any Error> {
        let first = resumedFrom.withLock { resumed in
            resumed.append(headers["Last-Event-ID"])
            return resumed.count == 1
        }
        return openStream(sending: first ? "id: 25\nevent: reload\ndata: {}\n\n" : "")
    }
}

/// `event: reload` against the version the session holds: one its pages already show is
/// skipped, and one past them reloads pages at least that new (review 83 F1, F2).
@Suite struct ReloadEventTests {
    /// Follows until `done` holds of the session (or 120 s pass: the full parallel run
    /// starves tasks for tens of seconds), then stops following.
    static func follow(_ session: ListSession, until done: @escaping @Sendable (ListSession) async -> Bool) async {
        let follower = Task { try await session.follow() }
        let deadline = ContinuousClock.now + .seconds(120)
        while await !done(session), ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
        follower.cancel()
        _ = await follower.result
    }

    /// A list over a query says `reload` for each write: a burst of them that the pages
    /// read for the first already show reloads once, not once each (each read every held
    /// page again).
    @Test func reloadsThePagesAlreadyShowAreSkipped() async throws {
        let burst = (3...12).map { "id: \($0)\nevent: reload\ndata: {\"op\":\"reload\",\"version\":\"\($0)\"}\n\n" }
        let transport = VersionedPagesTransport(versions: [2, 12], stream: burst.joined())
        let session = ListSession(configuration: ListSessionConfiguration(list: "l"), transport: transport)
        try await session.loadFirstPage()
        await Self.follow(session) { await $0.statistics.changesSkipped >= 9 }
        #expect(await session.statistics.reloads == 1)
        #expect(await session.statistics.changesSkipped == 9)
        #expect(await session.snapshot.version == 12)
    }

    /// A reload at version 15 answered by a replica still at 12 is read again until it is
    /// at 15: taken at 12, the session showed the list from before the write, and the
    /// stream, past 15, would never say reload again.
    @Test func aReloadReadsPagesAtLeastAsNewAsItsEvent() async throws {
        let transport = VersionedPagesTransport(
            versions: [10, 12, 12, 15],
            stream: "id: 15\nevent: reload\ndata: {\"op\":\"reload\",\"version\":\"15\"}\n\n"
        )
        let session = ListSession(configuration: ListSessionConfiguration(list: "l"), transport: transport)
        try await session.loadFirstPage()
        // Taken at 12, it stays there: the wait ends at its bound then.
        await Self.follow(session) { await $0.snapshot.version == 15 }
        #expect(await session.snapshot.version == 15)
        #expect(await session.statistics.pagesRead == 4)
    }

    /// A reload whose pages and changes every replica answers older than the stream's
    /// place (past the `reload` at 25) holds what it reached, and the stream is opened again
    /// from there: the open one never sends the changes between, lost for good (review 83
    /// F4: a page at 15 and changes to 17 under the 20 held; review 85: a page at 22 and
    /// changes to 22, past the 20 held but short of the 25 of the event).
    @Test(arguments: [(15, 17), (22, 22)])
    func aReloadThatEndsBehindTheStreamOpensItAgainFromThere(later: Int64, changes: Int64) async throws {
        let transport = LaggingEverywhereTransport(later: later, changes: changes)
        let configuration = ListSessionConfiguration(list: "l", reconnectDelay: .milliseconds(100))
        let session = ListSession(configuration: configuration, transport: transport)
        try await session.loadFirstPage()
        await Self.follow(session) { _ in transport.resumedFrom.withLock { $0.count } >= 2 }
        #expect(await session.snapshot.version == changes)
        #expect(transport.resumedFrom.withLock { $0 }.prefix(2) == ["20", "\(changes)"])
    }

    /// A page by cursor that every replica answers older than what the session holds is
    /// a `behind` error that asks to try again, not a `bad-answer` (an app shows those as a
    /// broken server), and the session is left as it was (review 83 F5).
    @Test func aPageThatStaysOlderThanTheSessionIsBehindNotABadAnswer() async throws {
        let transport = CursorPageBehindTransport()
        let session = ListSession(configuration: ListSessionConfiguration(list: "l"), transport: transport)
        try await session.loadFirstPage()
        do {
            try await session.loadMore()
            Issue.record("the page older than the session was taken")
        } catch let error as ListClientError {
            #expect(error.code == .behind && error.retryAfter == .seconds(1), "\(error)")
        }
        #expect(await session.snapshot.version == 20)
        #expect(await session.snapshot.nextCursor == "c")
    }
}

/// A first page at version 20 whose `next` is `c`, and a page at `c` that every replica
/// answers at 15.
struct CursorPageBehindTransport: StreamsNothing {
    func get(path: String, query: [(String, String)], headers: [String: String]) async throws -> TransportAnswer {
        let (version, next) = query.contains { $0.0 == "cursor" } ? (15, "null") : (20, #""c""#)
        let page = #"{"list":"l","view":"v","version":"\#(version)","sections":[],"next":\#(next),"prev":null}"#
        return TransportAnswer(status: 200, body: Array(page.utf8))
    }
}
