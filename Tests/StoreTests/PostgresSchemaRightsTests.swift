import DataMediator
import DataMediatorPostgres
import DataMediatorSQL
import Foundation
import PostgresNIO
import Testing

/// A role that may not create tables in the database's schema: the start (and
/// `check --store`) says what PostgreSQL said, not what a serving service says of a list's
/// table changed under it.
@Suite struct PostgresSchemaRightsTests {
    @Test func aRoleThatMayNotCreateTablesIsToldSoAtStart() async throws {
        let admin = try await PostgresFixture()
        let name = "dm_rights_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(12))"
        // The database is the server's user's: since PostgreSQL 15 no other role may create
        // in its `public` schema.
        for statement in ["CREATE ROLE \(name) LOGIN", "CREATE DATABASE \(name)"] {
            try await admin.store.primary.query(PostgresQuery(unsafeSQL: statement))
        }
        guard var parts = URLComponents(string: try PostgresFixture.serverURL()) else { throw FixtureError("no URL") }
        parts.user = name
        parts.password = nil
        parts.path = "/" + name
        let store = try PostgresStore(
            url: try #require(parts.string),
            maximumConnections: 2,
            logger: PostgresFixture.logger
        )
        let error = await #expect(throws: StoreError.self) {
            try await store.withClientsRunning { try await store.prepare() }
        }
        let message = error?.description ?? ""
        #expect(message.contains("permission denied for schema public"), "\(message)")
        #expect(!message.contains("another program"), "\(message)")
    }
}
