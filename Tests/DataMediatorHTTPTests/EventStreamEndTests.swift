import DataMediator
import DataMediatorTesting
import Logging
import NIOCore
import NIOEmbedded
import Testing

@testable import DataMediatorHTTP

extension EventReloadTests {
    /// A stream's end is logged with why and how long it ran: its request's line is
    /// written when it opens, and nothing else would say how long a client followed.
    @Test func aStreamsEndIsLoggedWithWhyAndHowLong() async throws {
        let fixture = try Fixture()
        let view = try fixture.notes.definition.view(named: nil)
        let start = try await fixture.notes.currentVersion()
        let settings = EventConfiguration(heartbeat: .milliseconds(50))
        func ended(_ stream: EventStream, _ logs: CapturedLogs) async throws -> (reason: String?, duration: Double?) {
            var writer = RecordingWriter()
            try await stream.run(into: &writer)
            let ends = logs.records.filter { $0.message == "event stream ended" }
            #expect(ends.count == 1, "\(logs.records)")
            let duration = ends.first?.metadata["duration_ms"].flatMap { Double($0.description) }
            #expect(ends.first?.metadata["list"] == "notes" && ends.first?.metadata["view"] == "all")
            return (ends.first?.metadata["reason"]?.description, duration)
        }
        // The token's `exp` came.
        let expiring = CapturedLogs()
        let expired = try await ended(
            EventStream(
                adapter: fixture.notes,
                view: view,
                start: start,
                settings: settings,
                ends: .now + .milliseconds(200),
                logger: expiring.logger
            ),
            expiring
        )
        #expect(expired.reason == "token expired")
        #expect((expired.duration ?? 0) >= 200, "\(expired)")
        // The client's connection closed.
        let loop = EmbeddedEventLoop()
        let closing = loop.makePromise(of: Void.self)
        let gone = CapturedLogs()
        async let clientGone = ended(
            EventStream(
                adapter: fixture.notes,
                view: view,
                start: start,
                settings: settings,
                closed: closing.futureResult,
                logger: gone.logger
            ),
            gone
        )
        try await Task.sleep(for: .milliseconds(100))
        closing.succeed()
        #expect(try await clientGone.reason == "client gone")
        // History gone before the stream read it: `reload`, then the end.
        for index in 0..<6 { try await fixture.write("n\(index)") }
        let behind = CapturedLogs()
        let reloaded = try await ended(
            EventStream(
                adapter: fixture.notes,
                view: view,
                start: start,
                resumed: true,
                settings: settings,
                logger: behind.logger
            ),
            behind
        )
        #expect(reloaded.reason == "history gone")
        // The service shuts down.
        let stopping = CapturedLogs()
        async let shutdown = ended(
            EventStream(
                adapter: fixture.notes,
                view: view,
                start: try await fixture.notes.currentVersion(),
                settings: settings,
                logger: stopping.logger
            ),
            stopping
        )
        try await Task.sleep(for: .milliseconds(100))
        fixture.notes.notifier.finishAll()
        #expect(try await shutdown.reason == "shutdown")
    }
}
