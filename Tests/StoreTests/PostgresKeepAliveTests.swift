import DataMediatorPostgres
import PostgresNIO
import Testing

/// The store's connections to PostgreSQL get TCP keep-alive, which PostgresNIO does not
/// set, so a database that vanished without closing them is noticed.
@Suite struct PostgresKeepAliveTests {
    @Test func theStoresConnectionsGetKeepAlive() async throws {
        let fixture = try await PostgresFixture()
        try await fixture.store.primary.query("SELECT 1")
        // PostgresNIO's connections come without it (the store's, and the fixture's own).
        let before = DatabaseKeepAlive.sockets(peerPorts: fixture.store.ports)
        #expect(before.contains { !$0.keepAlive })
        let enabled = DatabaseKeepAlive.enable(peerPorts: fixture.store.ports)
        #expect(!enabled.isEmpty)
        // Other suites open connections meanwhile: those set are read back, not all.
        let after = DatabaseKeepAlive.sockets(peerPorts: fixture.store.ports).filter { enabled.contains($0.descriptor) }
        #expect(!after.isEmpty && after.allSatisfy(\.keepAlive))
        #expect(DatabaseKeepAlive.sockets(peerPorts: [1]).isEmpty)
    }
}
