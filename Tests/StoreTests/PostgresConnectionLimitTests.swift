import DataMediator
import DataMediatorPostgres
import DataMediatorSQL
import Foundation
import PostgresNIO
import Testing

/// A store whose pool opens more connections than PostgreSQL lets its user open refuses to
/// start, naming the limit and the way out; within the limits it starts.
@Suite struct PostgresConnectionLimitTests {
    /// A new role (its connections limited to `roleLimit`) that owns a new database, and
    /// the URL that reaches it as that role.
    func limitedDatabase(roleLimit: Int, databaseLimit: Int = -1) async throws -> String {
        let admin = try await PostgresFixture()
        let name = "dm_limited_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(12))"
        for statement in [
            "CREATE ROLE \(name) LOGIN CONNECTION LIMIT \(roleLimit)",
            "CREATE DATABASE \(name) OWNER \(name) CONNECTION LIMIT \(databaseLimit)",
        ] {
            try await admin.store.primary.query(PostgresQuery(unsafeSQL: statement))
        }
        guard var parts = URLComponents(string: try PostgresFixture.serverURL()) else { throw FixtureError("no URL") }
        parts.user = name
        parts.password = nil
        parts.path = "/" + name
        return try #require(parts.string)
    }

    /// `prepare()` of a store over `url` (reading from `readURL` when given) whose pools
    /// open up to `connections` each.
    func prepare(_ url: String, readURL: String? = nil, connections: Int) async throws {
        let store = try PostgresStore(
            url: url,
            readURL: readURL,
            maximumConnections: connections,
            timeout: .seconds(60),
            keepConnectionsOpen: false,
            poolSizeSetting: "DATA_MEDIATOR_DATABASE_CONNECTIONS",
            logger: PostgresFixture.logger
        )
        try await store.withClientsRunning { try await store.prepare() }
    }

    @Test func aRoleThatMayOpenFewerConnectionsThanThePoolIsRefusedAtStart() async throws {
        let url = try await limitedDatabase(roleLimit: 3)
        let error = await #expect(throws: StoreError.self) { try await prepare(url, connections: 8) }
        let message = error?.description ?? ""
        #expect(message.contains("open 3 connections") && message.contains("the role's CONNECTION LIMIT"), "\(message)")
        #expect(
            message.contains("opens up to 8") && message.contains("DATA_MEDIATOR_DATABASE_CONNECTIONS"),
            "\(message)"
        )
        // Within the limit, the same store starts.
        try await prepare(url, connections: 3)
    }

    @Test func aDatabaseThatTakesFewerConnectionsThanThePoolIsRefusedAtStart() async throws {
        let url = try await limitedDatabase(roleLimit: -1, databaseLimit: 2)
        let error = await #expect(throws: StoreError.self) { try await prepare(url, connections: 4) }
        #expect(error?.description.contains("open 2 connections") == true, "\(String(describing: error))")
        #expect(error?.description.contains("the database's CONNECTION LIMIT") == true)
        try await prepare(url, connections: 2)
    }

    @Test func aReadReplicaThatTakesFewerConnectionsThanItsPoolIsRefusedAtStart() async throws {
        let primary = try await PostgresFixture()
        let replica = try await limitedDatabase(roleLimit: 2)
        let error = await #expect(throws: StoreError.self) {
            try await prepare(primary.url, readURL: replica, connections: 4)
        }
        #expect(error?.description.contains("open 2 connections") == true, "\(String(describing: error))")
        #expect(error?.description.contains("user 'dm_limited_") == true, "the replica's user is named")
        try await prepare(primary.url, readURL: replica, connections: 2)
    }
}

extension PostgresConnectionLimitTests {
    /// A read URL that reaches the primary's server: both pools count against its limits
    /// (each pool alone fitting, the two together did not, and the start went on to "did not
    /// answer in time").
    @Test func aReadURLOnThePrimarysServerCountsBothPools() async throws {
        let url = try await limitedDatabase(roleLimit: 5)
        let error = await #expect(throws: StoreError.self) { try await prepare(url, readURL: url, connections: 3) }
        let message = error?.description ?? ""
        #expect(message.contains("open 5 connections") && message.contains("the role's CONNECTION LIMIT"), "\(message)")
        #expect(
            message.contains("the primary's and the read replica's, on this one server) open up to 6"),
            "\(message)"
        )
        try await prepare(url, readURL: url, connections: 2)
    }
}

extension PostgresConnectionLimitTests {
    /// The limits are read before any pool runs, over a connection of the check's own: the
    /// service checks them before its pools open every connection they may (which took a
    /// shared server's free connections from its other clients while the start went on).
    @Test func theLimitsAreCheckedBeforeThePoolsOpenAConnection() async throws {
        let url = try await limitedDatabase(roleLimit: 3)
        // Pools that keep every connection open, as the service's do; no client runs, so a
        // check through a pool would wait for the whole timeout.
        func store(connections: Int) throws -> PostgresStore {
            try PostgresStore(
                url: url,
                maximumConnections: connections,
                timeout: .seconds(60),
                poolSizeSetting: "DATA_MEDIATOR_DATABASE_CONNECTIONS",
                logger: PostgresFixture.logger
            )
        }
        let error = await #expect(throws: StoreError.self) { try await store(connections: 8).checkConnectionLimits() }
        #expect(error?.description.contains("open 3 connections") == true, "\(String(describing: error))")
        try await store(connections: 3).checkConnectionLimits()
    }
}
