import DataMediator
import DataMediatorSQL
import DataMediatorTesting
import PostgresNIO
import Testing

@testable import DataMediatorPostgres

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
            // Half the pool's connections hold writes; the other writes wait for a slot,
            // holding none (up to 30 s for them to get there on a loaded machine).
            let slots = try #require(subject.postgresStore).writeSlots
            for _ in 0..<600 where slots.use.waiting < 6 {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(slots.count == 4 && slots.use.held == 4 && slots.use.waiting == 6, "\(slots.use)")
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
