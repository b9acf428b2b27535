import DataMediatorPostgres
import DataMediatorSQL
import PostgresNIO
import Synchronization
import Testing

/// A PostgreSQL store's start (and an import's) runs the service tables' statements only
/// when this release's statements did not make them (``ServiceTables/schemaMark(_:)``):
/// `ALTER TABLE ... ADD COLUMN IF NOT EXISTS` takes the change log's strongest lock before
/// it looks, so a start behind a long transaction that had read the log (a backup) waited
/// for its end, and every write of every replica waited behind it (review 106 #1).
@Suite struct PostgresSchemaMarkTests {
    @Test func aStoreStartsBesideALongReaderOfItsTablesWithoutWaiting() async throws {
        let fixture = try await PostgresFixture()
        let other = try await PostgresFixture(sharing: fixture)
        let (released, release) = AsyncStream<Void>.makeStream()
        let (holding, held) = AsyncStream<Void>.makeStream()
        // A reader of the change log whose transaction stays open until released.
        let reader = Task {
            try await other.store.primary.withConnection { connection in
                try await connection.query("BEGIN", logger: PostgresFixture.logger)
                try await connection.query(
                    "SELECT count(*) FROM \(unescaped: ServiceTables.changes)",
                    logger: PostgresFixture.logger
                )
                held.yield()
                for await _ in released { break }
                try await connection.query("COMMIT", logger: PostgresFixture.logger)
            }
        }
        for await _ in holding { break }
        // Another replica starts (its store prepares) while the reader holds its lock; the
        // reader lets go after 30 s at the latest, which is then too late.
        let letGo = Mutex(false)
        let watchdog = Task {
            try await Task.sleep(for: .seconds(30))
            letGo.withLock { $0 = true }
            release.yield()
        }
        _ = try await PostgresFixture(sharing: fixture)
        #expect(!letGo.withLock { $0 }, "the start waited for the reader's transaction")
        watchdog.cancel()
        release.yield()
        try await reader.value
        // A store whose tables another release made (another mark) runs the statements.
        _ = try await fixture.store.primary.query(
            "COMMENT ON TABLE \(unescaped: ServiceTables.store) IS 'data-mediator schema 000000000000000000000000'"
        )
        _ = try await PostgresFixture(sharing: fixture)
        let rows = try await fixture.store.primary.query(
            "SELECT obj_description(to_regclass(\(ServiceTables.store)), 'pg_class')"
        )
        var mark: String?
        for try await value in rows.decode(String?.self) { mark = value }
        #expect(mark == ServiceTables.schemaMark(.postgres))
        // What the statements make and was dropped since is made again, the mark current
        // (review 108 #2: every write failed on the missing column until they ran).
        let (indexes, columns) = ServiceTables.schemaParts(.postgres)
        #expect(
            indexes.contains("data_mediator_changes_age")
                && columns.contains { $0 == (ServiceTables.changes, "old_item") }
        )
        _ = try await fixture.store.primary.query("DROP INDEX data_mediator_changes_age")
        _ = try await fixture.store.primary.query(
            "ALTER TABLE \(unescaped: ServiceTables.changes) DROP COLUMN old_item"
        )
        _ = try await PostgresFixture(sharing: fixture)
        let present = try await fixture.store.primary.query(
            """
            SELECT to_regclass('data_mediator_changes_age') IS NOT NULL,
                EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass(\(ServiceTables.changes))
                    AND attname = 'old_item' AND NOT attisdropped)
            """
        )
        for try await (index, column) in present.decode((Bool, Bool).self) { #expect(index && column) }
    }
}
