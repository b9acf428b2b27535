import DataMediatorSQL
import DataMediatorTesting
import Foundation
import PostgresNIO
import Testing

@testable import DataMediatorPostgres

/// The PostgreSQL clients' configuration, read from a connection URL.
@Suite struct PostgresPoolTests {
    @Test func theURLGivesTheServerAndTheDatabase() throws {
        let configuration = try PostgresStore.configuration(
            "postgres://reader:secret@db.internal:6543/lists",
            maximumConnections: 7
        )
        #expect(configuration.host == "db.internal" && configuration.port == 6543)
        #expect(configuration.username == "reader" && configuration.password == "secret")
        #expect(configuration.database == "lists")
        #expect(configuration.options.maximumConnections == 7)
    }

    /// An IPv6 address is the host without its brackets; a scheme in capitals is read.
    @Test func anIPv6AddressIsTheHostWithoutItsBrackets() throws {
        let configuration = try PostgresStore.configuration("POSTGRESQL://u@[::1]:5433/lists", maximumConnections: 1)
        #expect(configuration.host == "::1" && configuration.port == 5433)
    }

    /// Each connection above the pool's minimum handed back to it would arm an idle timer
    /// (and a keep-alive one when pinging) whose task and memory stay until it would fire:
    /// the pool keeps every connection open and pings none, so it arms no timer at all.
    @Test func thePoolKeepsEveryConnectionOpenAndPingsNone() throws {
        let configuration = try PostgresStore.configuration("postgres://u@localhost/db", maximumConnections: 20)
        #expect(configuration.options.keepAliveBehavior == nil)
        #expect(configuration.options.minimumConnections == 20)
        let lazy = try PostgresStore.configuration(
            "postgres://u@localhost/db",
            maximumConnections: 20,
            keepConnectionsOpen: false
        )
        #expect(lazy.options.minimumConnections == 0)
    }

    /// Without being asked, a store opens its whole pool and keeps it open while idle.
    @Test func aRunningStoreOpensItsWholePoolAndKeepsItOpen() async throws {
        let fixture = try await PostgresFixture(connections: 3, keepConnectionsOpen: true)
        let database = try #require(fixture.url.split(separator: "/").last.map(String.init))
        let admin = try await PostgresFixture(connections: 1)
        func open() async throws -> Int {
            let rows = try await admin.store.primary.query(
                "SELECT count(*)::int8 FROM pg_stat_activity WHERE datname = \(database)"
            )
            for try await count in rows.decode(Int64.self) { return Int(count) }
            return 0
        }
        var seen = try await open()
        for _ in 0..<100 where seen < 3 {
            try await Task.sleep(for: .milliseconds(100))
            seen = try await open()
        }
        #expect(seen == 3)
        // Past the idle timeout a connection above the minimum would have had.
        try await Task.sleep(for: PostgresStore.idleTimeout + .seconds(2))
        #expect(try await open() == 3)
    }

    @Test(arguments: ["mysql://u@h/db", "postgres:///db", "not a url"])
    func otherURLsAreRefused(url: String) {
        #expect(throws: StoreError.self) { try PostgresStore.configuration(url, maximumConnections: 1) }
    }

    /// While a store starts, the pool's raw line for each retry of a connection it cannot
    /// open stays out of the log (the start's failure says why in one line); once started,
    /// the pool's lines pass.
    @Test func thePoolsLinesWaitForTheStoreToStart() async throws {
        let fixture = try await PostgresFixture(connections: 1)
        var missing = try #require(URLComponents(string: fixture.url))
        missing.path = "/dm_no_such_database"
        let starting = CapturedLogs()
        let failing = try PostgresStore(
            url: try #require(missing.string),
            maximumConnections: 1,
            timeout: .seconds(2),
            keepConnectionsOpen: false,
            logger: starting.logger
        )
        await #expect(throws: StoreError.self) { try await failing.withClientsRunning { try await failing.prepare() } }
        #expect(!starting.records.contains { $0.message == "Connection creation failed" }, "\(starting.records)")
        let started = CapturedLogs()
        let store = try PostgresStore(
            url: fixture.url,
            maximumConnections: 1,
            timeout: .seconds(60),
            keepConnectionsOpen: false,
            logger: started.logger
        )
        try await store.withClientsRunning {
            try await store.prepare()
            _ = try await store.version()
        }
        #expect(
            started.records.contains { $0.message == "Connection closed" },
            "\(Set(started.records.map(\.message)))"
        )
    }
}
