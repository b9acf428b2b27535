import DataMediatorTesting
import Synchronization
import Testing

@testable import DataMediator
@testable import DataMediatorHTTP

/// A change log that notes the most changes it was asked for at once.
final class LimitNotingLog: ChangeLog {
    let inner: any ChangeLog
    let largest = Atomic<Int>(0)

    init(_ inner: any ChangeLog) { self.inner = inner }

    func changes(of view: View, since: Int64, limit: Int) async throws -> ChangeWindow {
        largest.max(limit, ordering: .relaxed)
        return try await inner.changes(of: view, since: since, limit: limit)
    }
}

extension EventStreamTests {
    /// A live stream that fell behind (its client read nothing for a while) reads what it
    /// missed a batch at a time, as a catching-up one does: it held up to its whole buffer
    /// (1,000 changes, each with its item) in memory at once, and sends every change.
    @Test func aStreamBehindReadsABatchAtATimeAndMissesNothing() async throws {
        let fixture = try WriteRouteTests.Fixture()
        let notes = try fixture.registry.adapter(named: "notes")
        let log = LimitNotingLog(try #require(notes.changeLog))
        let adapter = ListAdapter(
            definition: notes.definition,
            provider: notes.provider,
            signer: CursorSigner(secret: SampleList.secret),
            changeLog: log,
            notifier: notes.notifier
        )
        let start = try await notes.currentVersion()
        let (gate, release) = AsyncStream<Void>.makeStream()
        // The first event's write hangs until released, like a full socket.
        let recorder = RecordingWriter(gate: gate, blockAfter: 2)
        let stream = try EventReloadTests.stream(of: adapter, from: start, into: recorder)
        try await Self.write(notes, "first")
        try await Task.sleep(for: .milliseconds(200))
        let behind = EventStream.catchUpBatch + 44
        for index in 0..<behind { try await Self.write(notes, "w\(index)") }
        release.yield()
        try await EventStreamTests.waitFor(recorder, events: behind + 1)
        stream.cancel()
        _ = await stream.result
        let events = recorder.events
        #expect(events.count == behind + 1 && !events.contains { $0.event == "reload" })
        #expect(events.map(\.id) == (1...(behind + 1)).map { "\(start + Int64($0))" })
        // A read of n changes asks the log for one more, to know whether more follow.
        #expect(log.largest.load(ordering: .relaxed) <= EventStream.catchUpBatch + 1)
    }
}
