import DataMediatorSQL
import DataMediatorTesting
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

@testable import DataMediator
@testable import DataMediatorHTTP

/// Reads that lag the writes (a read replica behind its primary): a client's version newer
/// than the reads is waited for, not answered as a reset, and a write the notifier
/// announced reaches the streams once the reads hold it, not at the next heartbeat.
@Suite struct ReplicaLagTests {
    /// Whether the reads caught up, and until then the version they stand at.
    final class Lag: Sendable {
        let behind: Int64
        /// Whether the reads do not catch up (a replica paused longer than the wait).
        let stuck: Atomic<Bool>
        /// How many looks at the reads' version fail from now (a replica's connection ended).
        let failing = Atomic<Int>(0)
        let caughtUp = Atomic<Bool>(false)

        init(behind: Int64, stuck: Bool = false) {
            self.behind = behind
            self.stuck = Atomic(stuck)
        }
    }

    /// A provider whose reads catch up when asked to, within the versions its source reached.
    final class LaggingProvider: DataProvider, SectionInfoProvider {
        let inner: any DataProvider & SectionInfoProvider
        let lag: Lag

        init(_ inner: any DataProvider & SectionInfoProvider, lag: Lag) {
            self.inner = inner
            self.lag = lag
        }

        func window(of view: View, from start: Position?, inclusive: Bool, limit: Int) async throws -> Window {
            lagged(try await inner.window(of: view, from: start, inclusive: inclusive, limit: limit))
        }

        func window(of view: View, before start: Position?, inclusive: Bool, limit: Int) async throws -> Window {
            lagged(try await inner.window(of: view, before: start, inclusive: inclusive, limit: limit))
        }

        /// `window` as read at the reads' version (its items are the source's: only the
        /// version tells the reads apart here).
        func lagged(_ window: Window) -> Window {
            lag.caughtUp.load(ordering: .relaxed) ? window : Window(items: window.items, version: lag.behind)
        }

        func locate(id: String, in view: View) async throws -> Location? { try await inner.locate(id: id, in: view) }

        func currentVersion() async throws -> Int64 {
            lag.caughtUp.load(ordering: .relaxed) ? try await inner.currentVersion() : lag.behind
        }

        func sectionCounts(of view: View) async throws -> SectionCounts { try await inner.sectionCounts(of: view) }

        func catchUp(to version: Int64) async throws -> CatchUp {
            if lag.failing.load(ordering: .relaxed) > 0 {
                lag.failing.subtract(1, ordering: .relaxed)
                throw DataMediatorError(.unavailable, "The read replica's connection closed; retry shortly.")
            }
            guard version <= (try await inner.currentVersion()) else { return .notBehind }
            guard !lag.caughtUp.load(ordering: .relaxed), version > lag.behind else { return .caughtUp }
            if lag.stuck.load(ordering: .relaxed) { return .stillBehind }
            lag.caughtUp.store(true, ordering: .relaxed)
            return .caughtUp
        }
    }

    /// A change log that answers as a replica at `lag.behind` does until the reads caught up.
    final class LaggingLog: ChangeLog {
        let inner: any ChangeLog
        let lag: Lag

        init(_ inner: any ChangeLog, lag: Lag) {
            self.inner = inner
            self.lag = lag
        }

        func changes(of view: View, since: Int64, limit: Int) async throws -> ChangeWindow {
            if lag.caughtUp.load(ordering: .relaxed) {
                return try await inner.changes(of: view, since: since, limit: limit)
            }
            try DataMediatorError.checkHistory(since: since, floor: 0, version: lag.behind)
            let window = try await inner.changes(of: view, since: since, limit: limit)
            return ChangeWindow(changes: window.changes.filter { $0.version <= lag.behind }, version: lag.behind)
        }
    }

    /// The fixture's `notes` read through reads that stand at `behind` (`lag`'s, when given).
    func lagging(_ fixture: EventReloadTests.Fixture, behind: Int64, lag: Lag? = nil) throws -> ListAdapter {
        let notes = fixture.notes
        let lag = lag ?? Lag(behind: behind)
        return ListAdapter(
            definition: notes.definition,
            provider: LaggingProvider(notes.provider, lag: lag),
            signer: CursorSigner(secret: [UInt8](repeating: 7, count: 32)),
            writer: notes.writer,
            changeLog: LaggingLog(try #require(notes.changeLog), lag: lag),
            notifier: notes.notifier
        )
    }

    /// A client's read after its own write waits for the reads to hold the write; another
    /// client's read does not wait for it.
    @Test func aClientsReadWaitsForItsOwnWrite() async throws {
        let lag = try await afterAnasWrite(stuck: false) { client, lag async throws in
            #expect(try await client.execute(uri: "/lists/notes/items", method: .get, headers: Self.bo).status == .ok)
            let waitedForOthers = lag.caughtUp.load(ordering: .relaxed)
            #expect(!waitedForOthers, "another client's read waited for the write")
            #expect(try await client.execute(uri: "/lists/notes/items", method: .get, headers: Self.ana).status == .ok)
        }
        let waitedForOwn = lag.caughtUp.load(ordering: .relaxed)
        #expect(waitedForOwn, "the writer's read did not wait for its write")
    }

    static let ana: HTTPFields = [.authorization: "Bearer ana-writes", .contentType: "application/json"]
    static let bo: HTTPFields = [.authorization: "Bearer bo-writes"]

    /// Runs `body` on a router that keeps writes, over the fixture's `notes` read through a
    /// new lag at its version (`stuck`: never catching up until told), once ana's write
    /// there was answered `201`; answers the lag. With `notifier`, the router hears every
    /// replica's writes from it.
    func afterAnasWrite(
        stuck: Bool,
        notifier: ChangeNotifier? = nil,
        _ body: @escaping @Sendable (any TestClientProtocol, Lag) async throws -> Void
    ) async throws -> Lag {
        let fixture = try EventReloadTests.Fixture()
        let lag = Lag(behind: try await fixture.notes.currentVersion(), stuck: stuck)
        let adapter = try lagging(fixture, behind: lag.behind, lag: lag)
        // A list of no store (a file's) beside it, whose reads never lag.
        let sample = ListAdapter(
            definition: SampleList.definition,
            provider: ArrayDataProvider(items: SampleList.items(), idField: "id", views: SampleList.views),
            signer: CursorSigner(secret: SampleList.secret)
        )
        var configuration = HTTPServerConfiguration(writeTokens: ["ana-writes", "bo-writes"])
        configuration.readYourWrites = .seconds(60)
        configuration.writeNotifier = notifier
        configuration.writeNotificationWait = .milliseconds(1)
        let router = buildRouter(registry: ListRegistry([adapter, sample]), configuration: configuration)
        try await Application(router: router).test(.router) { client in
            try await Self.anaWrites(with: client)
            try await body(client, lag)
        }
        return lag
    }

    /// Ana's write of a note through `client`, answered `201`.
    static func anaWrites(with client: any TestClientProtocol) async throws {
        let written = try await client.execute(
            uri: "/lists/notes/items",
            method: .post,
            headers: ana,
            body: ByteBuffer(string: #"{"data": {"title": "mine"}}"#)
        )
        #expect(written.status == .created)
    }

    @Test func aVersionNewerThanTheReadsIsWaitedFor() async throws {
        let fixture = try EventReloadTests.Fixture()
        let start = try await fixture.notes.currentVersion()
        for title in ["a", "b", "c"] { try await fixture.write(title) }
        let view = try fixture.notes.definition.view(named: nil)
        let adapter = try lagging(fixture, behind: start + 1)
        // A client holds version start + 3 (from a write, or another replica's page).
        let changes = try await adapter.changes(of: view, since: start + 3, limit: 10)
        #expect(changes.version == start + 3 && changes.entries.isEmpty)
        // A version the source never reached is still gone.
        let beyond = try lagging(fixture, behind: start + 1)
        let gone = await #expect(throws: DataMediatorError.self) {
            _ = try await beyond.changes(of: view, since: start + 9, limit: 10)
        }
        #expect(gone?.code == .historyGone)
        // Reads that do not catch up in time answer "retry", not "reload from the top".
        let stuck = try lagging(fixture, behind: start + 1, lag: Lag(behind: start + 1, stuck: true))
        let later = await #expect(throws: DataMediatorError.self) {
            _ = try await stuck.changes(of: view, since: start + 3, limit: 10)
        }
        #expect(later?.code == .unavailable, "\(String(describing: later))")
    }

    /// A composite over a lagging list waits as the list does: its version is its
    /// children's, so a version newer than their reads is theirs to catch up with.
    @Test func aCompositeOverALaggingListWaitsAsItsChildDoes() async throws {
        let fixture = try EventReloadTests.Fixture()
        let start = try await fixture.notes.currentVersion()
        for title in ["a", "b"] { try await fixture.write(title) }
        let view = try fixture.notes.definition.view(named: nil)
        func composite(over lag: Lag) throws -> ListAdapter {
            ListAdapter.composite(
                name: "home",
                title: "Home",
                children: [
                    CompositeChild(name: "intro", content: .section(id: "intro", title: nil, cells: [])),
                    CompositeChild(
                        name: "notes",
                        content: .list(try lagging(fixture, behind: lag.behind, lag: lag), view: view)
                    ),
                ],
                signer: CursorSigner(secret: [UInt8](repeating: 7, count: 32))
            )
        }
        let home = try composite(over: Lag(behind: start))
        let homeView = try home.definition.view(named: nil)
        let changes = try await home.changes(of: homeView, since: start + 2, limit: 10)
        #expect(changes.version == start + 2 && changes.entries.isEmpty, "\(changes)")
        #expect(try await home.catchUp(to: start + 9) == .notBehind, "never reached")
        let stuck = try composite(over: Lag(behind: start, stuck: true))
        let later = await #expect(throws: DataMediatorError.self) {
            _ = try await stuck.changes(of: homeView, since: start + 2, limit: 10)
        }
        #expect(later?.code == .unavailable, "\(String(describing: later))")
    }

    /// A walk that moves to reads lagging more than the last page's (another service
    /// replica, on another database replica) waits for them to reach the version its cursor
    /// was read at, forward and backward: its pages never go back in time.
    /// A replica still behind a client's write when the wait's time is up answers that
    /// client `503` with `Retry-After`, not a list without its write, and keeps the write
    /// for the retry; once the replica holds it, the retry reads it.
    @Test func aClientsReadOfAReplicaStuckBehindItsWriteIsRetry() async throws {
        let lag = try await afterAnasWrite(stuck: true) { client, lag in
            for path in ["/lists/notes/items", "/lists/notes/sections"] {
                let refused = try await client.execute(uri: path, method: .get, headers: Self.ana)
                #expect(refused.status == .serviceUnavailable, "\(path)")
                #expect(refused.headers[.retryAfter] == "1", "\(path)")
                #expect(refused.headers[.contentType] == "application/problem+json", "\(path)")
                #expect(String(buffer: refused.body).contains("not replayed your latest write"), "\(path)")
            }
            #expect(try await client.execute(uri: "/lists/notes/items", method: .get, headers: Self.bo).status == .ok)
            lag.stuck.store(false, ordering: .relaxed)
            #expect(try await client.execute(uri: "/lists/notes/items", method: .get, headers: Self.ana).status == .ok)
        }
        let caughtUp = lag.caughtUp.load(ordering: .relaxed)
        #expect(caughtUp, "the retry did not wait for the write")
    }

    /// A read of a list of no store (a file's) after a write is answered at once and says
    /// nothing of the store's replica: the write is kept, and the client's next read of
    /// the store's list still waits for it (it was forgotten, and that read answered
    /// without the client's write; review 95 #2).
    @Test func aReadOfAListOfNoStoreKeepsTheWriteWaitedFor() async throws {
        let lag = try await afterAnasWrite(stuck: true) { client, lag in
            let sample = try await client.execute(uri: "/lists/sample/items", method: .get, headers: Self.ana)
            #expect(sample.status == .ok)
            let refused = try await client.execute(uri: "/lists/notes/items", method: .get, headers: Self.ana)
            #expect(refused.status == .serviceUnavailable, "the write was forgotten")
            lag.stuck.store(false, ordering: .relaxed)
            #expect(try await client.execute(uri: "/lists/notes/items", method: .get, headers: Self.ana).status == .ok)
        }
        let caughtUp = lag.caughtUp.load(ordering: .relaxed)
        #expect(caughtUp, "the store's read did not wait for the write")
    }

    /// A look at the reads' version that fails (a replica's connection ended) cannot say
    /// the reads hold the client's write: `503`, the write kept, and the retry waits for it.
    @Test func aClientsReadWhoseWaitFailedIsRetry() async throws {
        let lag = try await afterAnasWrite(stuck: false) { client, lag async throws in
            lag.failing.store(1, ordering: .relaxed)
            let refused = try await client.execute(uri: "/lists/notes/items", method: .get, headers: Self.ana)
            #expect(refused.status == .serviceUnavailable)
            #expect(refused.headers[.retryAfter] == "1")
            let waitedYet = lag.caughtUp.load(ordering: .relaxed)
            #expect(!waitedYet, "the read was served without its wait")
            #expect(try await client.execute(uri: "/lists/notes/items", method: .get, headers: Self.ana).status == .ok)
        }
        let caughtUp = lag.caughtUp.load(ordering: .relaxed)
        #expect(caughtUp, "the retry did not wait for the write")
    }

    @Test func aPageFromACursorIsNeverOlderThanTheCursorsPage() async throws {
        let fixture = try EventReloadTests.Fixture()
        let start = try await fixture.notes.currentVersion()
        for title in ["a", "b", "c", "d"] { try await fixture.write(title) }
        let current = start + 4
        let caughtUp = Lag(behind: current)
        caughtUp.caughtUp.store(true, ordering: .relaxed)
        let first = try await lagging(fixture, behind: current, lag: caughtUp).page(view: nil, limit: "1", cursor: nil)
        #expect(first.version == current)
        let next = try #require(first.next)
        let second = try await lagging(fixture, behind: current, lag: caughtUp).page(
            view: nil,
            limit: "1",
            cursor: next
        )
        let prev = try #require(second.prev)
        for cursor in [next, prev] {
            let lag = Lag(behind: start + 1)
            let page = try await lagging(fixture, behind: lag.behind, lag: lag).page(
                view: nil,
                limit: "1",
                cursor: cursor
            )
            #expect(page.version == current, "a page older than its cursor's: \(page.version)")
            let asked = lag.caughtUp.load(ordering: .relaxed)
            #expect(asked, "the reads were not asked to catch up")
            // Reads that do not reach it in time answer "retry", not a page from before.
            let stuck = try lagging(fixture, behind: start + 1, lag: Lag(behind: start + 1, stuck: true))
            let later = await #expect(throws: DataMediatorError.self) {
                _ = try await stuck.page(view: nil, limit: "1", cursor: cursor)
            }
            #expect(later?.code == .unavailable, "\(String(describing: later))")
        }
        // Reads already at the cursor's version, a cursor of an earlier release (no version)
        // and one from a version the source never reached (a store reset) are read at once.
        let view = try fixture.notes.definition.view(named: nil)
        let signer = CursorSigner(secret: [UInt8](repeating: 7, count: 32))
        let position = try signer.verify(next, list: "notes", view: view).position
        for version in [Int64?.none, current + 9] {
            let lag = Lag(behind: start + 1)
            let token = signer.sign(
                Cursor(list: "notes", view: view.cursorBinding, position: position, inclusive: false, version: version)
            )
            let page = try await lagging(fixture, behind: lag.behind, lag: lag).page(
                view: nil,
                limit: "1",
                cursor: token
            )
            let asked = lag.caughtUp.load(ordering: .relaxed)
            #expect(page.version == start + 1 && !asked, "\(String(describing: version))")
        }
        let level = Lag(behind: current)
        _ = try await lagging(fixture, behind: current, lag: level).page(view: nil, limit: "1", cursor: next)
        let asked = level.caughtUp.load(ordering: .relaxed)
        #expect(!asked, "reads at the cursor's version were asked to catch up")
    }

    @Test func aStreamReadsAnAnnouncedWriteOnceTheReadsHoldIt() async throws {
        let fixture = try EventReloadTests.Fixture()
        let start = try await fixture.notes.currentVersion()
        let adapter = try lagging(fixture, behind: start)
        let (recorder, stream) = try EventReloadTests.stream(of: adapter, from: start)
        try await fixture.write("a")
        // The primary's notification names the write's version.
        fixture.notes.notifier.publish(version: start + 1)
        try await EventStreamTests.waitFor(recorder, events: 1)
        stream.cancel()
        _ = await stream.result
        #expect(recorder.events.map(\.id) == ["\(start + 1)"])
    }

    /// A look at the reads that fails (a read replica that does not answer) leaves the
    /// stream open: it looks again at its next signal and sends the write once the reads
    /// hold it (a probe's streams were cut 5 s into a standby's stop).
    @Test func aStreamOutlastsLooksAtTheReadsThatFail() async throws {
        let fixture = try EventReloadTests.Fixture()
        let start = try await fixture.notes.currentVersion()
        let lag = Lag(behind: start)
        lag.failing.store(3, ordering: .relaxed)
        let adapter = try lagging(fixture, behind: start, lag: lag)
        let (recorder, stream) = try EventReloadTests.stream(of: adapter, from: start)
        try await fixture.write("a")
        fixture.notes.notifier.publish(version: start + 1)
        try await EventStreamTests.waitFor(recorder, events: 1)
        stream.cancel()
        let ended = await stream.result
        #expect(lag.failing.load(ordering: .relaxed) == 0, "the looks did not fail")
        #expect(recorder.events.map(\.id) == ["\(start + 1)"])
        if case .failure(let error) = ended { #expect(error is CancellationError, "the stream ended with \(error)") }
    }
}
