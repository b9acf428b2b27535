import DataMediator
import DataMediatorTesting
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing

@testable import DataMediatorHTTP

/// Idempotent creates, the change feed, ETags under writes, read tokens and live events.
@Suite struct ChangeRouteTests {
    typealias Fixture = WriteRouteTests.Fixture

    static func json(_ response: TestResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
    }

    static let key = HTTPField.Name.known("Idempotency-Key")

    @Test func anIdempotentRetryStoresOneItem() async throws {
        let fixture = try Fixture()
        let before = try await fixture.state()
        try await fixture.run { client in
            let body = #"{"data": {"title": "once", "score": 1}}"#
            let first = try await client.execute(
                uri: "/lists/notes/items",
                method: .post,
                headers: WriteRouteTests.headers([Self.key: "retry-1"]),
                body: WriteRouteTests.body(body)
            )
            #expect(first.status == .created)
            // The same body, spaced and ordered differently, is the same request.
            let retry = try await client.execute(
                uri: "/lists/notes/items",
                method: .post,
                headers: WriteRouteTests.headers([Self.key: #""retry-1""#]),
                body: WriteRouteTests.body(#"{ "data": { "score": 1, "title": "once" } }"#)
            )
            #expect(retry.status == .created)
            #expect(retry.body == first.body)
            #expect(retry.headers[.location] == first.headers[.location])
            #expect(retry.headers[HTTPField.Name.known("Idempotent-Replayed")] == "true")
            let other = try await client.execute(
                uri: "/lists/notes/items",
                method: .post,
                headers: WriteRouteTests.headers([Self.key: "retry-1"]),
                body: WriteRouteTests.body(#"{"data": {"title": "twice"}}"#)
            )
            #expect(other.status == .unprocessableContent)
            #expect(try Self.json(other)["type"] as? String == "/problems/idempotency-key-reused")
            for bad in ["", String(repeating: "k", count: 256), "é-key"] {
                let refused = try await client.execute(
                    uri: "/lists/notes/items",
                    method: .post,
                    headers: WriteRouteTests.headers([Self.key: bad]),
                    body: WriteRouteTests.body(#"{"data": {"title": "bad key"}}"#)
                )
                #expect(refused.status == .badRequest, "key '\(bad)'")
            }
            // Every key openapi.yaml's pattern admits is taken: 255 characters inside quotes,
            // and `""`, which is two characters rather than an empty quoted key.
            for good in ["\"" + String(repeating: "q", count: 255) + "\"", #""""#] {
                let taken = try await client.execute(
                    uri: "/lists/notes/items",
                    method: .post,
                    headers: WriteRouteTests.headers([Self.key: good]),
                    body: WriteRouteTests.body(#"{"data": {"title": "good key"}}"#)
                )
                #expect(taken.status == .created, "key '\(good)'")
            }
        }
        let after = try await fixture.state()
        #expect(after.count == before.count + 3)
        #expect(after.version == before.version + 3)
    }

    @Test func theChangeFeedPagesAndRefusesWhatItCannotAnswer() async throws {
        let fixture = try Fixture()
        let start = try await fixture.state().version
        try await fixture.run { client in
            for title in ["a", "b", "c"] {
                let created = try await client.execute(
                    uri: "/lists/notes/items",
                    method: .post,
                    headers: WriteRouteTests.headers(),
                    body: WriteRouteTests.body(#"{"data": {"title": "\#(title)"}}"#)
                )
                #expect(created.status == .created)
            }
            let first = try await client.execute(uri: "/lists/notes/changes?since=\(start)&limit=2", method: .get)
            #expect(first.status == .ok)
            let answer = try Self.json(first)
            let changes = try #require(answer["changes"] as? [[String: Any]])
            #expect(changes.map { $0["op"] as? String } == ["insert", "insert"])
            #expect(changes.map { $0["version"] as? String } == ["\(start + 1)", "\(start + 2)"])
            #expect(answer["since"] as? String == "\(start)" && answer["version"] as? String == "\(start + 3)")
            #expect(answer["next"] as? String == "\(start + 2)")
            #expect(
                first.headers[HTTPField.Name.known("Link")]
                    == "</lists/notes/changes?limit=2&since=\(start + 2)>; rel=\"next\""
            )
            let second = try Self.json(
                try await client.execute(uri: "/lists/notes/changes?since=\(start + 2)&limit=2", method: .get)
            )
            #expect((second["changes"] as? [[String: Any]])?.count == 1)
            #expect(second["next"] is NSNull)

            for (query, status, type) in [
                ("since=\(start + 4)", HTTPResponse.Status.gone, "history-gone"),
                ("since=x", .badRequest, "bad-request"),
                // Past 64 bits is still a version no list has reached.
                ("since=99999999999999999999", .gone, "history-gone"), ("since=-1", .badRequest, "bad-request"),
                ("", .badRequest, "bad-request"), ("since=0&limit=0", .badRequest, "bad-limit"),
                ("since=0&view=nope", .notFound, "unknown-view"),
            ] {
                let refused = try await client.execute(uri: "/lists/notes/changes?\(query)", method: .get)
                #expect(refused.status == status, "\(query)")
                #expect(refused.headers[.contentType] == "application/problem+json")
                #expect(try Self.json(refused)["type"] as? String == "/problems/\(type)")
            }
            // Its answer does not quote the 64-bit number it stands for as the one sent.
            let huge = try Self.json(
                try await client.execute(uri: "/lists/notes/changes?since=99999999999999999999", method: .get)
            )
            #expect((huge["detail"] as? String)?.hasPrefix("The version asked for is newer than") == true, "\(huge)")
            // A read-only list in memory never changes: nothing since 0, and nothing newer exists.
            let still = try Self.json(try await client.execute(uri: "/lists/sample/changes?since=0", method: .get))
            #expect((still["changes"] as? [Any])?.isEmpty == true)
            let future = try await client.execute(uri: "/lists/sample/changes?since=1", method: .get)
            #expect(future.status == .gone)
        }
    }

    /// A stream resumes after `Last-Event-ID`, else `since`; an empty `Last-Event-ID` (what an
    /// `id:` field with no value leaves, WHATWG) is none, so `since` counts.
    @Test func anEmptyLastEventIDIsNone() async throws {
        try await Fixture().run { client in
            for (lastEventID, query, status) in [
                ("", "", HTTPResponse.Status.ok), ("", "?since=x", .badRequest), ("x", "", .badRequest),
                ("0", "?since=x", .ok), ("-1", "", .badRequest),
            ] {
                let answer = try await client.execute(
                    uri: "/lists/notes/events\(query)",
                    method: .head,
                    headers: [HTTPField.Name.known("Last-Event-ID"): lastEventID]
                )
                #expect(answer.status == status, "Last-Event-ID '\(lastEventID)', \(query)")
            }
        }
    }

    @Test func aChangedPageNeverAnswers304() async throws {
        let fixture = try Fixture()
        try await fixture.run { client in
            let created = try await client.execute(
                uri: "/lists/notes/items",
                method: .post,
                headers: WriteRouteTests.headers([Self.key: "etag"]),
                body: WriteRouteTests.body(#"{"id": "e1", "data": {"title": "first"}}"#)
            )
            #expect(created.status == .created)
            let page = try await client.execute(uri: "/lists/notes/items", method: .get)
            let etag = try #require(page.headers[.eTag])
            let same = try await client.execute(uri: "/lists/notes/items", method: .get, headers: [.ifNoneMatch: etag])
            #expect(same.status == .notModified)
            let patched = try await client.execute(
                uri: "/lists/notes/items/e1",
                method: .patch,
                headers: WriteRouteTests.headers(),
                body: WriteRouteTests.body(#"{"data": {"title": "second"}}"#)
            )
            #expect(patched.status == .ok)
            let changed = try await client.execute(
                uri: "/lists/notes/items",
                method: .get,
                headers: [.ifNoneMatch: etag]
            )
            #expect(changed.status == .ok)
            #expect(changed.headers[.eTag] != etag)
            #expect(String(buffer: changed.body).contains("second"))
        }
    }

    @Test func readsCanNeedAToken() async throws {
        let fixture = try Fixture()
        try await fixture.run(readTokens: ["reader"]) { client in
            let open = try await client.execute(uri: "/lists", method: .get)
            #expect(open.status == .unauthorized)
            #expect(open.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
            #expect(open.headers[.contentType] == "application/problem+json")
            let read = try await client.execute(uri: "/lists", method: .get, headers: [.authorization: "Bearer reader"])
            #expect(read.status == .ok)
            let writer = try await client.execute(
                uri: "/lists/notes/items",
                method: .get,
                headers: [.authorization: "Bearer \(WriteRouteTests.token)"]
            )
            #expect(writer.status == .ok)
            let wrong = try await client.execute(
                uri: "/lists/notes/changes?since=0",
                method: .get,
                headers: [.authorization: "Bearer nope"]
            )
            #expect(wrong.status == .unauthorized)
            #expect(try await client.execute(uri: "/health", method: .get).status == .ok)
        }
    }
}

/// A response body that keeps what is written, and can hold a write until released.
final class RecordingWriter: ResponseBodyWriter, @unchecked Sendable {
    let text = Mutex("")
    let gate: AsyncStream<Void>?
    private var gateIterator: AsyncStream<Void>.Iterator?
    private var writes = 0
    let blockAfter: Int

    init(gate: AsyncStream<Void>? = nil, blockAfter: Int = .max) {
        self.gate = gate
        self.gateIterator = gate?.makeAsyncIterator()
        self.blockAfter = blockAfter
    }

    func write(_ buffer: ByteBuffer) async throws {
        writes += 1
        if writes == blockAfter { _ = await gateIterator?.next() }
        try Task.checkCancellation()
        text.withLock { $0 += String(buffer: buffer) }
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws {}

    var events: [(id: String, event: String)] {
        text.withLock { $0 }.components(separatedBy: "\n\n").compactMap { block in
            let lines = block.split(separator: "\n")
            guard let id = lines.first(where: { $0.hasPrefix("id: ") }),
                let event = lines.first(where: { $0.hasPrefix("event: ") })
            else { return nil }
            return (String(id.dropFirst(4)), String(event.dropFirst(7)))
        }
    }
}

/// The live stream: events in order with their versions, resume after the last id seen,
/// heartbeats, and a stream too slow to follow closed with `event: reload`.
@Suite struct EventStreamTests {
    static func write(_ adapter: ListAdapter, _ title: String) async throws {
        _ = try await adapter.create(body: .object(["data": .object(["title": .string(title)])]))
    }

    static func waitFor(_ writer: RecordingWriter, events count: Int) async throws {
        for _ in 0..<1000 where writer.events.count < count { try await Task.sleep(for: .milliseconds(10)) }
    }

    @Test func aReconnectWithTheLastIDMissesAndRepeatsNothing() async throws {
        let fixture = try WriteRouteTests.Fixture()
        let adapter = try fixture.registry.adapter(named: "notes")
        let view = try adapter.definition.view(named: nil)
        let start = try await adapter.currentVersion()
        let settings = EventConfiguration(heartbeat: .milliseconds(50))
        let first = RecordingWriter()
        let stream = Task {
            var writer = first
            try await EventStream(adapter: adapter, view: view, start: start, settings: settings).run(into: &writer)
        }
        for title in ["a", "b", "c"] { try await Self.write(adapter, title) }
        try await Self.waitFor(first, events: 3)
        // A quiet stream sends heartbeats (every 50 ms here; waited for up to 5 s, as a
        // loaded machine may delay them).
        for _ in 0..<500 where !first.text.withLock({ $0.contains(": heartbeat") }) {
            try await Task.sleep(for: .milliseconds(10))
        }
        stream.cancel()
        _ = await stream.result
        #expect(first.events.map(\.id) == ["\(start + 1)", "\(start + 2)", "\(start + 3)"])
        #expect(first.events.map(\.event) == ["insert", "insert", "insert"])
        #expect(first.text.withLock { $0 }.contains(": heartbeat"))
        // The stream's first block names the version it starts after as its `id` (an event
        // of no data, which EventSource does not fire): a client that loses the stream
        // before any event resumes from there, not from the version at its reconnect.
        #expect(first.text.withLock { $0 }.hasPrefix("retry: 2000\nid: \(start)\n"))

        // Written while no stream was open; the reconnect resumes after the second event.
        for title in ["d", "e"] { try await Self.write(adapter, title) }
        let second = RecordingWriter()
        let resumed = Task {
            var writer = second
            try await EventStream(adapter: adapter, view: view, start: start + 2, settings: settings).run(into: &writer)
        }
        try await Self.waitFor(second, events: 3)
        resumed.cancel()
        _ = await resumed.result
        #expect(second.events.map(\.id) == ["\(start + 3)", "\(start + 4)", "\(start + 5)"])
        #expect(adapter.notifier.subscriberCount == 0)
    }

    @Test func aCompositesStreamCarriesItsChildrensWritesInItsIds() async throws {
        let fixture = try WriteRouteTests.Fixture()
        let notes = try fixture.registry.adapter(named: "notes")
        let composite = try fixture.screen()
        let start = try await composite.currentVersion()
        let recorder = RecordingWriter()
        let stream = Task {
            var writer = recorder
            try await EventStream(
                adapter: composite,
                view: try composite.definition.view(named: nil),
                start: start,
                settings: EventConfiguration(heartbeat: .milliseconds(50))
            ).run(into: &writer)
        }
        for title in ["a", "b"] { try await Self.write(notes, title) }
        try await Self.waitFor(recorder, events: 2)
        stream.cancel()
        _ = await stream.result
        #expect(recorder.events.map(\.id) == ["\(start + 1)", "\(start + 2)"])
        #expect(recorder.events.map(\.event) == ["insert", "insert"])
        let text = recorder.text.withLock { $0 }
        #expect(text.contains(#""section":"n/all""#) && text.contains(#""id":"n/"#), "\(text)")
    }

    /// Runs `body`, failing (instead of hanging the suite) when it takes longer than `limit`.
    static func within(
        _ limit: Duration,
        _ what: String,
        _ body: @escaping @Sendable () async throws -> Void
    ) async throws {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await body()
                return true
            }
            group.addTask {
                try await Task.sleep(for: limit)
                return false
            }
            let finished = try await group.next() ?? false
            group.cancelAll()
            #expect(finished, "\(what) did not finish within \(limit)")
        }
    }

    @Test func aStreamTooSlowToFollowIsClosedWithReload() async throws {
        let fixture = try WriteRouteTests.Fixture()
        let adapter = try fixture.registry.adapter(named: "notes")
        let view = try adapter.definition.view(named: nil)
        let start = try await adapter.currentVersion()
        let (gate, release) = AsyncStream<Void>.makeStream()
        // The second write (the first event) hangs until released, like a full socket.
        let slow = RecordingWriter(gate: gate, blockAfter: 2)
        let stream = Task {
            var writer = slow
            try await EventStream(
                adapter: adapter,
                view: view,
                start: start,
                settings: EventConfiguration(heartbeat: .seconds(5), buffer: 3)
            ).run(into: &writer)
        }
        try await Self.write(adapter, "first")
        try await Task.sleep(for: .milliseconds(200))
        // Writers are not held up by the stuck stream: they all finish while it is stuck
        // (were they waiting for it, this would end in the timeout instead).
        try await Self.within(.seconds(30), "writes while a stream is stuck") {
            for index in 0..<10 { try await Self.write(adapter, "w\(index)") }
        }
        // Nothing of an event went out while the stream was stuck.
        #expect(slow.events.isEmpty)
        release.yield()
        try await Self.within(.seconds(30), "the stuck stream ends") { try await stream.value }
        let events = slow.events
        #expect(events.first?.event == "insert")
        #expect(events.last?.event == "reload")
        #expect(events.last?.id == "\(start + 11)")
    }
}
