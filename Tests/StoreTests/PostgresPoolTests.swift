import DataMediatorSQL
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

    /// Each connection handed back to the pool would arm a keep-alive timer and an idle
    /// timer whose memory stays until they would fire (30 and 60 s): the pool pings no
    /// connection and closes idle ones after 10 s instead.
    @Test func idleConnectionsAreClosedSoonAndNotPinged() throws {
        let configuration = try PostgresStore.configuration("postgres://u@localhost/db", maximumConnections: 20)
        #expect(configuration.options.keepAliveBehavior == nil)
        #expect(configuration.options.connectionIdleTimeout == .seconds(10))
    }

    @Test(arguments: ["mysql://u@h/db", "postgres:///db", "not a url"])
    func otherURLsAreRefused(url: String) {
        #expect(throws: StoreError.self) { try PostgresStore.configuration(url, maximumConnections: 1) }
    }
}
