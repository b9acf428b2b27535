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

        /// `notes` read through `provider` (one that forwards to its own, changing some
        /// of its answers), with its own writer, change log and notifier.
        func notes(readingFrom provider: any DataProvider & SectionInfoProvider) -> ListAdapter {
            ListAdapter(
                definition: notes.definition,
                provider: provider,
                signer: CursorSigner(secret: SampleList.secret),
                writer: notes.writer,
                changeLog: notes.changeLog,
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

    /// A `Last-Event-ID` (or `since`) ahead of the store, a client's of another store or of
    /// one restored from a backup, is not echoed as the opening block's `id` before the
    /// `reload` (a client that lost the stream between them resumed from it again); the
    /// reload's `id` is the store's version.
    @Test func aVersionAheadOfTheStoreIsNotEchoedBeforeTheReload() async throws {
        let fixture = try Fixture()
        for index in 0..<2 { try await fixture.write("n\(index)") }
        let version = try await fixture.notes.currentVersion()
        let router = buildRouter(registry: ListRegistry([fixture.notes, fixture.count]))
        try await Application(router: router).test(.router) { client in
            let ahead: HTTPFields = [EventStream.lastEventID: "\(version + 50)"]
            for (uri, headers) in [
                ("/lists/notes/events", ahead), ("/lists/notes/events?since=\(version + 50)", [:]),
                ("/lists/count/events", ahead),
            ] {
                let answer = try await client.execute(uri: uri, method: .get, headers: headers)
                let text = String(buffer: answer.body)
                #expect(answer.status == .ok)
                #expect(!text.contains("id: \(version + 50)"), "\(uri): \(text)")
                let ids = text.split(separator: "\n").filter { $0.hasPrefix("id: ") }
                #expect(ids == ["id: \(version)"], "\(uri): \(text)")
                #expect(text.contains("id: \(version)\nevent: reload\n"), "\(uri): \(text)")
            }
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
