import DataMediatorTesting
import Logging
import Synchronization
import Testing

@testable import DataMediator
@testable import DataMediatorHTTP

/// A provider that answers as `inner` does, but cannot say its version (`unavailable`,
/// as in a database outage) the first `failures` times it is asked.
final class VersionOutageProvider: ForwardingProvider {
    let inner: any DataProvider & SectionInfoProvider
    /// The times it was asked its version and could not say.
    let failed = Atomic<Int>(0)
    let failures: Int

    init(_ inner: any DataProvider & SectionInfoProvider, failures: Int) {
        self.inner = inner
        self.failures = failures
    }

    func currentVersion() async throws -> Int64 {
        if failed.add(1, ordering: .relaxed).newValue <= failures {
            throw DataMediatorError(.unavailable, "The database is down.")
        }
        return try await inner.currentVersion()
    }
}

extension EventReloadTests {
    /// A stream whose history is gone sends `reload` at the store's version once the store
    /// can say it: while it cannot (`unavailable`), the stream stays open with its
    /// heartbeats, as for a read that failed (it ended with the error, no event sent).
    @Test func aStreamWhoseHistoryIsGoneWaitsForTheVersionItReloadsAt() async throws {
        let fixture = try Fixture()
        let notes = fixture.notes
        let start = try await notes.currentVersion()
        for index in 0..<6 { try await fixture.write("n\(index)") }
        let provider = VersionOutageProvider(notes.provider, failures: 3)
        let adapter = ListAdapter(
            definition: notes.definition,
            provider: provider,
            signer: CursorSigner(secret: SampleList.secret),
            changeLog: notes.changeLog,
            notifier: notes.notifier
        )
        let (recorder, stream) = try Self.stream(of: adapter, from: start + 1)
        try await EventStreamTests.waitFor(recorder, events: 1)
        let ended = await stream.result
        #expect(provider.failed.load(ordering: .relaxed) == 4, "asked until it could say")
        #expect(recorder.events.map(\.event) == ["reload"])
        #expect(recorder.events.map(\.id) == ["\(start + 6)"])
        if case .failure(let error) = ended { Issue.record("the stream ended with \(error)") }
    }
}

/// A change log whose reads fail with a fault of the store's, not an outage.
final class FaultyLog: ChangeLog {
    struct Fault: Error {}
    /// The reads that failed so far.
    let reads = Atomic<Int>(0)

    func changes(of view: View, since: Int64, limit: Int) async throws -> ChangeWindow {
        reads.add(1, ordering: .relaxed)
        throw Fault()
    }
}

extension EventReloadTests {
    /// A stream whose read fails for another reason than an outage ends as a whole
    /// response (the client reconnects with `Last-Event-ID`), and says why at `error`: the
    /// fault was thrown on, which cut the connection and was logged by no one.
    @Test func aStreamWhoseReadFailsEndsAndLogsWhy() async throws {
        let fixture = try Fixture()
        let log = FaultyLog()
        let adapter = fixture.notes(readingChangesFrom: log)
        let logs = CapturedLogs()
        let recorder = RecordingWriter()
        let start = try await fixture.notes.currentVersion()
        let stream = EventStream(
            adapter: adapter,
            view: try adapter.definition.view(named: nil),
            start: start,
            settings: EventConfiguration(heartbeat: .milliseconds(50)),
            logger: logs.logger
        )
        var body = recorder
        try await stream.run(into: &body)
        #expect(log.reads.load(ordering: .relaxed) == 1)
        #expect(recorder.events.isEmpty)
        let errors = logs.records.filter { $0.level == .error }
        #expect(errors.map(\.message) == ["event stream ended: a read failed"])
        #expect(errors.first?.metadata["list"] == "notes")
        #expect(errors.first?.metadata["error"].map { "\($0)".contains("Fault") } == true)
    }
}
