import DataMediator
import DataMediatorPostgres
import DataMediatorTesting
import Foundation
import PostgresNIO
import Testing

@testable import DataMediatorSQL

/// A served table that another database's writes reach by logical replication: the
/// apply worker fires row triggers only (never statement triggers), so the table's
/// changes are counted by a row trigger that fires in replication, and the lists reload.
/// (scripts/test-postgres runs its server with `wal_level=logical`.)
@Suite struct PostgresLogicalReplicationTests {
    @Test func aWriteAppliedByASubscriptionIsSeen() async throws {
        let (subject, transactions, start) = try await OutsideWritesTests.subject(.postgres)
        let served = try #require(try await subject.otherProgram())
        let publisher = try await PostgresFixture()
        let logger = Logger(label: "publisher")
        let suffix = UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let slot = "dm_slot_\(suffix)"
        let subscription = "dm_sub_\(suffix)"
        try await publisher.store.primary.query("CREATE TABLE notes (id text PRIMARY KEY, title text, rev bigint)")
        try await publisher.store.primary.query(
            PostgresQuery(unsafeSQL: "CREATE PUBLICATION notes_out FOR TABLE notes")
        )
        try await publisher.store.primary.query(
            PostgresQuery(unsafeSQL: "SELECT 1 FROM pg_create_logical_replication_slot('\(slot)', 'pgoutput')")
        )
        let address = try #require(URLComponents(string: publisher.url))
        let connection =
            "host=\(address.host ?? "127.0.0.1") port=\(address.port ?? 5432) "
            + "dbname=\(address.path.dropFirst()) user=\(address.user ?? "postgres")"
        try await served.store.primary.query(
            PostgresQuery(
                unsafeSQL: """
                    CREATE SUBSCRIPTION \(subscription) CONNECTION '\(connection)' PUBLICATION notes_out
                    WITH (create_slot = false, slot_name = '\(slot)', copy_data = false)
                    """
            ),
            logger: logger
        )
        do {
            try await publisher.store.primary.query(
                "INSERT INTO notes (id, title, rev) VALUES ('copied', 'from the publisher', 1)"
            )
            // The subscription applies it within moments.
            let deadline = ContinuousClock.now + .seconds(60)
            var arrived = false
            while !arrived, ContinuousClock.now < deadline {
                arrived = try await transactions.read {
                    try await $0.integer("SELECT count(*) FROM notes WHERE id = 'copied'") == 1
                }
                if !arrived { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(arrived, "the subscription applied the publisher's row")
            #expect(try await OutsideWrites.check(transactions).recorded.map(\.table) == ["notes"])
            let changes = try await subject.adapter.changes(view: "flat", since: String(start), limit: nil)
            #expect(changes.entries.map(\.operation) == [.reload])
            #expect(try await subject.adapter.sectionInfo(view: "flat").total == 2)
        } catch {
            _ = try? await served.store.primary.query(PostgresQuery(unsafeSQL: "DROP SUBSCRIPTION \(subscription)"))
            throw error
        }
        try await served.store.primary.query(PostgresQuery(unsafeSQL: "DROP SUBSCRIPTION \(subscription)"))
    }
}
