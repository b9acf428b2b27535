import DataMediatorSQL
import DataMediatorSQLite
import DataMediatorTesting
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

@testable import DataMediator
@testable import DataMediatorHTTP

/// The two ways API.md's "Live" sends `event: reload`: a `Last-Event-ID` older than the
/// kept history is answered `200` with a stream whose first event is `reload` (the `410`
/// of `/changes`, as an event), and a list over a SQL query, which cannot say which item
/// changed, sends `reload` for each write to its tables.
@Suite struct EventReloadTests {
    /// A writable `notes` list keeping 3 versions of history, and `count`, a query list
    /// over its table, on one new SQLite store.
    final class Fixture: Sendable {
        let temporary: TemporaryStore
        let notes: ListAdapter
        let count: ListAdapter

        init() throws {
            temporary = try TemporaryStore("dm-reload")
            let types: [String: FieldType] = ["title": .string]
            let signer = CursorSigner(secret: SampleList.secret)
            let notifier = ChangeNotifier()
            notes = try temporary.store.adapter(
                for: ListDefinition(
                    name: "notes",
                    title: "Notes",
                    idField: "id",
                    revisionField: "rev",
                    views: [
                        View(
                            name: "all",
                            sort: [SortKey("title")],
                            idField: "id",
                            cellType: .fixed("note"),
                            fields: ["title"]
                        )
                    ],
                    isWritable: true,
                    rules: FieldRules(types: types, required: ["title"]),
                    history: 3
                ),
                source: StoreSource(
                    kind: .table("notes"),
                    fieldTypes: ["id": .string, "rev": .integer, "title": .string]
                ),
                signer: signer,
                notifier: notifier
            )
            count = try temporary.store.adapter(
                for: ListDefinition(
                    name: "count",
                    title: "Count",
                    idField: "n",
                    views: [View(name: "all", sort: [SortKey("n")], idField: "n", cellType: .fixed("c"), fields: [])]
                ),
                source: StoreSource(
                    kind: .query("SELECT COUNT(*) AS n FROM notes"),
                    fieldTypes: ["n": .integer],
                    versionTables: ["notes"]
                ),
                signer: signer,
                notifier: notifier
            )
        }

        /// `notes` with its changes read from `log` instead (a store that cannot be read).
        func notes(readingChangesFrom log: any ChangeLog) -> ListAdapter {
            ListAdapter(
                definition: notes.definition,
                provider: notes.provider,
                signer: CursorSigner(secret: SampleList.secret),
                changeLog: log,
                notifier: notes.notifier
            )
        }

        func write(_ title: String) async throws {
            _ = try await notes.create(body: .object(["data": .object(["title": .string(title)])]))
        }
    }

    @Test func aLastEventIDOlderThanTheHistoryOpensAStreamThatSaysReload() async throws {
        let fixture = try Fixture()
        let start = try await fixture.notes.currentVersion()
        for index in 0..<6 { try await fixture.write("n\(index)") }
        // `/changes` from there is gone.
        await #expect(throws: DataMediatorError.self) {
            _ = try await fixture.notes.changes(view: nil, since: "\(start + 1)", limit: nil)
        }
        let router = buildRouter(registry: ListRegistry([fixture.notes, fixture.count]))
        try await Application(router: router).test(.router) { client in
            let answer = try await client.execute(
                uri: "/lists/notes/events",
                method: .get,
                headers: [EventStream.lastEventID: "\(start + 1)"]
            )
            #expect(answer.status == .ok)
            #expect(answer.headers[.contentType]?.hasPrefix("text/event-stream") == true)
            let text = String(buffer: answer.body)
            let events = text.components(separatedBy: "\n\n").filter { $0.contains("event: ") }
            #expect(events.first?.hasPrefix("id: \(start + 6)\nevent: reload\n") == true, "\(text)")
            // A version within the history resumes with the events after it instead.
            let recent = try await client.execute(
                uri: "/lists/notes/events?since=\(start + 6)",
                method: .head
            )
            #expect(recent.status == .ok)
        }
    }

    @Test func aQueryListsStreamSaysReloadForEachWriteToItsTables() async throws {
        let fixture = try Fixture()
        let start = try await fixture.count.currentVersion()
        let view = try fixture.count.definition.view(named: nil)
        let recorder = RecordingWriter()
        let stream = Task {
            var writer = recorder
            try await EventStream(
                adapter: fixture.count,
                view: view,
                start: start,
                settings: EventConfiguration(heartbeat: .milliseconds(50))
            ).run(into: &writer)
        }
        for title in ["a", "b"] {
            try await fixture.write(title)
            try await EventStreamTests.waitFor(recorder, events: Int(try await fixture.count.currentVersion() - start))
        }
        stream.cancel()
        _ = await stream.result
        #expect(recorder.events.map(\.event) == ["reload", "reload"])
        #expect(recorder.events.map(\.id) == ["\(start + 1)", "\(start + 2)"])
    }
}

/// A change log that cannot be read (`unavailable`, as in a database outage) while `down`.
final class OutageLog: ChangeLog {
    let inner: any ChangeLog
    let down = Atomic<Bool>(true)

    init(_ inner: any ChangeLog) { self.inner = inner }

    func changes(of view: View, since: Int64, limit: Int) async throws -> ChangeWindow {
        if down.load(ordering: .relaxed) { throw DataMediatorError(.unavailable, "The database is down.") }
        return try await inner.changes(of: view, since: since, limit: limit)
    }
}

extension EventReloadTests {
    /// A stream whose store cannot be read stays open with its heartbeats, and sends every
    /// change it missed once the store can be read again (it ended at the first failed read).
    @Test func aStreamOutlastsAStoreThatCannotBeReadAndMissesNothing() async throws {
        let fixture = try Fixture()
        let notes = fixture.notes
        let log = OutageLog(try #require(notes.changeLog))
        let adapter = fixture.notes(readingChangesFrom: log)
        let start = try await notes.currentVersion()
        let (recorder, stream) = try EventReloadTests.stream(of: adapter, from: start)
        for title in ["a", "b"] { try await fixture.write(title) }
        for _ in 0..<500 where recorder.text.withLock({ $0.components(separatedBy: ": heartbeat").count }) < 4 {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(recorder.events.isEmpty)
        log.down.store(false, ordering: .relaxed)
        try await fixture.write("c")
        try await EventStreamTests.waitFor(recorder, events: 3)
        stream.cancel()
        let ended = await stream.result
        #expect(recorder.events.map(\.id) == ["\(start + 1)", "\(start + 2)", "\(start + 3)"])
        if case .failure(let error) = ended { #expect(error is CancellationError, "the stream ended with \(error)") }
    }
}

/// A change log that answers, from before `outsideAt`, a `reload` at it (another program
/// wrote the table then), as the SQL log does: none of the changes logged after it.
final class OutsideReloadLog: ChangeLog {
    let inner: any ChangeLog
    let outsideAt: Int64

    init(_ inner: any ChangeLog, outsideAt: Int64) {
        self.inner = inner
        self.outsideAt = outsideAt
    }

    func changes(of view: View, since: Int64, limit: Int) async throws -> ChangeWindow {
        let window = try await inner.changes(of: view, since: since, limit: limit)
        guard since < outsideAt else { return window }
        let reload = Change(operation: .reload, version: outsideAt, id: "", item: nil, placement: nil)
        return ChangeWindow(changes: [reload], version: window.version)
    }
}

extension EventReloadTests {
    /// A `reload` that ends the changes a stream read stands for every change up to the
    /// version they were read at, which the stream never sends: its `id` is that version,
    /// so a client that resumes with it is not sent again what its reloaded pages hold.
    @Test func aReloadsIDIsTheVersionItStandsFor() async throws {
        let fixture = try Fixture()
        let notes = fixture.notes
        let start = try await notes.currentVersion()
        for title in ["a", "b", "c"] { try await fixture.write(title) }
        let adapter = ListAdapter(
            definition: notes.definition,
            provider: notes.provider,
            signer: CursorSigner(secret: SampleList.secret),
            changeLog: OutsideReloadLog(try #require(notes.changeLog), outsideAt: start + 1),
            notifier: notes.notifier
        )
        let (recorder, stream) = try EventReloadTests.stream(of: adapter, from: start)
        try await EventStreamTests.waitFor(recorder, events: 1)
        try await fixture.write("d")
        try await EventStreamTests.waitFor(recorder, events: 2)
        stream.cancel()
        _ = await stream.result
        #expect(recorder.events.map(\.event) == ["reload", "insert"])
        #expect(recorder.events.map(\.id) == ["\(start + 3)", "\(start + 4)"])
    }
}

extension EventReloadTests {
    /// A stream of `adapter`'s default view from `start`, with heartbeats every 50 ms,
    /// recorded; cancel the task to end it.
    static func stream(of adapter: ListAdapter, from start: Int64) throws -> (RecordingWriter, Task<Void, any Error>) {
        let recorder = RecordingWriter()
        return (recorder, try stream(of: adapter, from: start, into: recorder))
    }

    /// A stream of `adapter`'s default view from `start` into `writer`, with heartbeats
    /// every `heartbeat`.
    static func stream(
        of adapter: ListAdapter,
        from start: Int64,
        into writer: some ResponseBodyWriter & Sendable,
        heartbeat: Duration = .milliseconds(50)
    ) throws -> Task<Void, any Error> {
        let view = try adapter.definition.view(named: nil)
        return Task {
            var body = writer
            try await EventStream(
                adapter: adapter,
                view: view,
                start: start,
                settings: EventConfiguration(heartbeat: heartbeat)
            ).run(into: &body)
        }
    }
}

/// A change log whose every read fails, after `delay` (a store that answers `unavailable`
/// at its timeout).
final class SlowOutageLog: ChangeLog {
    let delay: Duration
    /// The reads that failed so far.
    let reads = Atomic<Int>(0)

    init(delay: Duration) { self.delay = delay }

    func changes(of view: View, since: Int64, limit: Int) async throws -> ChangeWindow {
        try await Task.sleep(for: delay)
        reads.add(1, ordering: .relaxed)
        throw DataMediatorError(.unavailable, "The database did not answer in time.")
    }
}

/// A body writer that counts its writes.
final class CountingWriter: ResponseBodyWriter, Sendable {
    let writes = Atomic<Int>(0)

    func write(_ buffer: ByteBuffer) async throws {
        try Task.checkCancellation()
        writes.add(1, ordering: .relaxed)
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}

extension EventReloadTests {
    /// A stream whose reads fail slowly, one after each write's signal, still sends its
    /// heartbeats: the ticks queued behind those signals were held back or dropped (a
    /// probe saw 22 s of silence on a stream of 15 s heartbeats).
    @Test func aStreamWhoseReadsFailSlowlyKeepsItsHeartbeats() async throws {
        let fixture = try Fixture()
        let notes = fixture.notes
        // Each read fails after half the heartbeat's interval, or later on a loaded machine.
        let log = SlowOutageLog(delay: .milliseconds(200))
        let adapter = fixture.notes(readingChangesFrom: log)
        var version = try await notes.currentVersion()
        let writer = CountingWriter()
        let stream = try Self.stream(of: adapter, from: version, into: writer, heartbeat: .milliseconds(400))
        // A write's signal every 20 ms until six reads failed. Counted, not timed: each read
        // after the first starts half an interval or more after anything was sent, so a
        // heartbeat goes before it, however slowly a loaded machine runs the stream; the
        // ticks alone, queued behind the signals, almost never come (without the heartbeat
        // before a read: 3 heartbeats in 78 s, some 390 reads).
        let deadline = ContinuousClock.now + .seconds(120)
        while log.reads.load(ordering: .relaxed) < 6, ContinuousClock.now < deadline {
            version += 1
            notes.notifier.publish(version: version)
            try await Task.sleep(for: .milliseconds(20))
        }
        stream.cancel()
        _ = await stream.result
        let reads = log.reads.load(ordering: .relaxed)
        // The writes but the preamble.
        let heartbeats = writer.writes.load(ordering: .relaxed) - 1
        #expect(reads >= 6)
        #expect(heartbeats >= reads / 2, "\(heartbeats) heartbeats for \(reads) failed reads")
    }
}

extension EventReloadTests {
    /// A read that waits longer than the heartbeat's interval (a store whose timeout is set
    /// above it, a hung primary) does not silence the stream: heartbeats go on while it
    /// waits (a probe saw 5 s without a line on a stream of 3 s heartbeats).
    @Test func aStreamSendsHeartbeatsWhileAReadWaits() async throws {
        let fixture = try Fixture()
        let writer = CountingWriter()
        // The stream's first read waits until two lines were written, or 30 s; heartbeats
        // are due every 200 ms. Counted, not timed: a loaded run once starved the stream's
        // tasks for longer than a fixed wait of 3 s, and without the heartbeats during a
        // read nothing at all is written while the stream waits for it.
        let log = HangingLog(until: 2, within: .seconds(30), writer: writer)
        let adapter = fixture.notes(readingChangesFrom: log)
        let stream = try Self.stream(
            of: adapter,
            from: try await fixture.notes.currentVersion(),
            into: writer,
            heartbeat: .milliseconds(200)
        )
        let deadline = ContinuousClock.now + .seconds(60)
        while log.writesDuringRead.load(ordering: .relaxed) < 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        stream.cancel()
        _ = await stream.result
        let heartbeats = log.writesDuringRead.load(ordering: .relaxed)
        #expect(heartbeats >= 2, "\(heartbeats) heartbeats during a read of up to 30 s")
    }
}

/// A change log whose first read waits until `until` lines were written to `writer` (or
/// `within` passed) and then fails (`unavailable`), counting those lines; later reads fail
/// at once.
final class HangingLog: ChangeLog {
    let until: Int
    let within: Duration
    let writer: CountingWriter
    /// The writes made while the first read waited, or -1 until it ended.
    let writesDuringRead = Atomic<Int>(-1)
    let reads = Atomic<Int>(0)

    init(until: Int, within: Duration, writer: CountingWriter) {
        self.until = until
        self.within = within
        self.writer = writer
    }

    func changes(of view: View, since: Int64, limit: Int) async throws -> ChangeWindow {
        if reads.add(1, ordering: .relaxed).oldValue == 0 {
            let before = writer.writes.load(ordering: .relaxed)
            let deadline = ContinuousClock.now + within
            while writer.writes.load(ordering: .relaxed) - before < until, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            writesDuringRead.store(writer.writes.load(ordering: .relaxed) - before, ordering: .relaxed)
        }
        throw DataMediatorError(.unavailable, "The database did not answer in time.")
    }
}
