import DataMediator
import Logging
import Synchronization
import Testing

@testable import DataMediatorPostgres

/// A write on PostgreSQL tells every replica of the service which client it was made for
/// (``WriteOrigin``), with its version, in its notification on commit: each replica can
/// then hold that client's next reads until its read replica holds the write, whichever
/// replica the write went through.
@Suite struct PostgresWriterNotificationTests {
    /// The writers and versions `notifier` named, in order.
    final class Heard: Sendable {
        let writes = Mutex<[(writer: String, version: Int64)]>([])

        init(_ notifier: ChangeNotifier) {
            notifier.observeWriters { [weak self] writer, version in
                self?.writes.withLock { $0.append((writer, version)) }
            }
        }

        var all: [(writer: String, version: Int64)] { writes.withLock { $0 } }
    }

    /// Waits until `notifier` has heard of `version` (a notification comes after the commit).
    static func waitFor(_ version: Int64, on notifier: ChangeNotifier) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while notifier.latestVersion < version {
            guard ContinuousClock.now < deadline else { throw FixtureError("version \(version) was never announced") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    @Test func eachWriteNamesItsClientToTheOtherReplicas() async throws {
        let subject = try await WritableSubject(.postgres)
        // Another replica of the service, listening on the same database.
        let other = try await PostgresFixture(sharing: try #require(subject.postgresFixture))
        let notifier = ChangeNotifier()
        let heard = Heard(notifier)
        let listener = PostgresChangeListener(store: other.store, notifier: notifier, logger: PostgresFixture.logger)
        let listening = Task { try await listener.run() }
        defer { listening.cancel() }
        // The listener publishes once when it begins to listen.
        while notifier.generation == 0 { try await Task.sleep(for: .milliseconds(5)) }

        let created = try await WriteOrigin.$client.withValue("00ff17") {
            try await subject.adapter.create(body: OutsideWritesTests.note("n1", "tagged"), scope: nil)
        }
        let deleted = try await WriteOrigin.$client.withValue("0abc") {
            try await subject.adapter.delete(id: "n1")
        }
        // A write made for no client, and one whose tag is not one (it names no client).
        _ = try await subject.adapter.create(body: OutsideWritesTests.note("n2", "untagged"), scope: nil)
        let last = try await WriteOrigin.$client.withValue("not a tag") {
            try await subject.adapter.create(body: OutsideWritesTests.note("n3", "odd"), scope: nil)
        }
        try await Self.waitFor(last.version, on: notifier)

        let writes = heard.all
        #expect(writes.map(\.writer) == ["00ff17", "0abc"])
        #expect(writes.map(\.version) == [created.version, deleted])
    }

    @Test func aNotificationsPayloadIsReadStrictly() {
        #expect(PostgresChangeListener.parse("12") == (12, nil))
        #expect(PostgresChangeListener.parse("12 00ff") == (12, "00ff"))
        #expect(PostgresChangeListener.parse("12 00FF") == (12, nil), "a tag is lowercase hex")
        #expect(PostgresChangeListener.parse("12 ") == (12, nil))
        #expect(PostgresChangeListener.parse("12 " + String(repeating: "a", count: 65)) == (12, nil), "too long")
        #expect(PostgresChangeListener.parse("12 ab cd") == (12, nil))
        #expect(PostgresChangeListener.parse("x 00ff") == (nil, nil))
        #expect(PostgresChangeListener.parse("-3") == (nil, nil))
        #expect(PostgresChangeListener.parse("") == (nil, nil))
    }
}
