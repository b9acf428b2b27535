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
        let version = versions.withLock { versions in versions.count > 1 ? versions.removeFirst() : versions[0] }
        let page = #"{"list":"l","view":"v","version":"\#(version)","sections":[],"next":null,"prev":null}"#
        return TransportAnswer(status: 200, body: Array(page.utf8))
    }

    func events(
        path: String,
        query: [(String, String)],
        headers: [String: String]
    ) -> AsyncThrowingStream<ServerSentEvent, any Error> {
        var parser = ServerSentEventParser()
        let events = parser.feed(Array(text.utf8))
        return AsyncThrowingStream { continuation in
            for event in events { continuation.yield(event) }
        }
    }
}

/// `event: reload` against the version the session holds: one its pages already show is
/// skipped, and one past them reloads pages at least that new (review 83 F1, F2).
@Suite struct ReloadEventTests {
    /// Follows until `done` holds of the session (or 20 s pass), then stops following.
    static func follow(_ session: ListSession, until done: @escaping @Sendable (ListSession) async -> Bool) async {
        let follower = Task { try await session.follow() }
        let deadline = ContinuousClock.now + .seconds(20)
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
        await Self.follow(session) { session in
            let reloads = await session.statistics.reloads
            let version = await session.snapshot.version
            return reloads >= 1 && version >= 12
        }
        #expect(await session.snapshot.version == 15)
        #expect(await session.statistics.pagesRead == 4)
    }
}
