import DataMediatorTesting
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
