import DataMediator
import DataMediatorPostgres
import DataMediatorSQL
import DataMediatorTesting
import PostgresNIO
import Testing

/// Writes queued behind the store's version lock (another program's transaction holds it)
/// hold at most half the pool's connections: pages read in the other half meanwhile,
/// instead of waiting for a connection until their time runs out.
@Suite struct PostgresWriteSlotsTests {
    @Test func queuedWritesLeavePagesTheirConnections() async throws {
        let (subject, _, _) = try await OutsideWritesTests.subject(.postgres)
        let other = try #require(try await subject.otherProgram())
        let logger = Logger(label: "other-program")
        let adapter = subject.adapter
        let view = try #require(adapter.definition.views.first?.name)
        try await other.store.primary.withConnection { connection in
            try await connection.query("BEGIN", logger: logger)
            try await connection.query(
                PostgresQuery(unsafeSQL: "SELECT 1 FROM \(ServiceTables.versions) FOR UPDATE"),
                logger: logger
            )
            let writes = (0..<10).map { index in
                Task { _ = try await adapter.create(body: OutsideWritesTests.note("q\(index)", "queued"), scope: nil) }
            }
            // The writes that hold a connection wait for the lock; the rest wait for a slot
            // (up to 30 s for them to get there: a loaded machine opens connections slowly).
            /// The sessions of the database waiting for a lock, but this one.
            func waitingForALock() async throws -> Int64 {
                var rows = try await connection.query(
                    """
                    SELECT count(*)::int8 FROM pg_stat_activity
                    WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'
                    """,
                    logger: logger
                ).makeAsyncIterator()
                return try await rows.next()?.decode(Int64.self) ?? 0
            }
            for _ in 0..<600 where try await waitingForALock() < 4 {
                try await Task.sleep(for: .milliseconds(50))
            }
            try await Task.sleep(for: .milliseconds(300))
            let waiting = try await waitingForALock()
            #expect(waiting == 4, "writes holding a connection while queued: \(waiting) of the pool's 8")
            // A page is read while the writes are queued.
            let started = ContinuousClock.now
            let page = try await adapter.page(view: view, limit: "5", cursor: nil)
            #expect(page.items.count == 1 && ContinuousClock.now - started < .seconds(5))
            try await connection.query("COMMIT", logger: logger)
            for write in writes { try await write.value }
        }
        #expect(try await adapter.page(view: view, limit: "20", cursor: nil).items.count == 11)
    }
}
