import DataMediator
import DataMediatorPostgres
import DataMediatorTesting
import Logging
import Testing

/// The change listener tells a lost connection once it is to listen again, and not when the
/// service stops: a service that stops, or refuses to start, shuts the store's clients down
/// before it cancels the listener, and its log should not warn of a loss then.
@Suite struct PostgresChangeListenerTests {
    /// A listener over a fresh database, its records kept, that began to listen (it
    /// published once) and whose store's clients then stopped, as a service's do first when
    /// it stops.
    static func listenerWhoseStoreStopped(
        retryDelay: Duration
    ) async throws -> (logs: CapturedLogs, task: Task<Void, any Error>) {
        let fixture = try await PostgresFixture()
        let logs = CapturedLogs()
        let notifier = ChangeNotifier()
        let listener = PostgresChangeListener(
            store: fixture.store,
            notifier: notifier,
            logger: logs.logger,
            retryDelay: retryDelay
        )
        let task = Task { try await listener.run() }
        let deadline = ContinuousClock.now + .seconds(60)
        while notifier.generation == 0 {
            guard ContinuousClock.now < deadline else { throw FixtureError("the listener never listened") }
            try await Task.sleep(for: .milliseconds(5))
        }
        await fixture.stopClients()
        return (logs, task)
    }

    /// The warnings `logs` holds.
    static func warnings(_ logs: CapturedLogs) -> [String] {
        logs.records.filter { $0.level >= .warning }.map(\.message)
    }

    @Test func aListenerCancelledAfterItsStoreStoppedTellsNoLoss() async throws {
        let (logs, listening) = try await Self.listenerWhoseStoreStopped(retryDelay: .seconds(30))
        // Time for the listener to meet the closed clients, as a service's group takes to
        // cancel its other parts.
        try await Task.sleep(for: .seconds(1))
        listening.cancel()
        let cancelled = ContinuousClock.now
        try await listening.value
        #expect(ContinuousClock.now - cancelled < .seconds(10), "the pause ends when the listener is cancelled")
        #expect(Self.warnings(logs).isEmpty)
    }

    /// Attempts that fail one after another (a standby the primary's URL reaches answers
    /// "cannot execute LISTEN during recovery") are made, and told, ever less often.
    @Test func failedAttemptsBackOff() async throws {
        let (logs, listening) = try await Self.listenerWhoseStoreStopped(retryDelay: .milliseconds(50))
        defer { listening.cancel() }
        // Without backing off, one a 50 ms pause: some 40 in 2 s.
        try await Task.sleep(for: .seconds(2))
        let told = Self.warnings(logs).count
        #expect(told >= 2 && told <= 7, "\(told) warnings in 2 s")
    }

    @Test func aLostConnectionIsToldWhenTheListenerListensAgain() async throws {
        let (logs, listening) = try await Self.listenerWhoseStoreStopped(retryDelay: .milliseconds(100))
        defer { listening.cancel() }
        let deadline = ContinuousClock.now + .seconds(60)
        while Self.warnings(logs).isEmpty, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let warning = try #require(logs.records.first { $0.level >= .warning })
        #expect(warning.message == "lost the change notifications; listening again")
        #expect(warning.metadata["error"] != nil)
    }
}
