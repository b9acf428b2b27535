import DataMediatorHTTP
import DataMediatorSQLite
import Testing

@testable import data_mediator

/// `DATA_MEDIATOR_CLIENT_STREAMS`, `DATA_MEDIATOR_CLIENT_REQUESTS`,
/// `DATA_MEDIATOR_CLIENT_RATE`, `DATA_MEDIATOR_CLIENT_WRITES`,
/// `DATA_MEDIATOR_CLIENT_WRITE_RATE` and `DATA_MEDIATOR_CLIENT_READS`: each client's shares
/// and rates; `DATA_MEDIATOR_TRUSTED_PROXIES`: who a client behind a proxy is.
@Suite struct ClientLimitsSettingsTests {
    @Test func theSharesDefaultBelowTheServersLimits() throws {
        let defaults = try ServeConfiguration.of([:])
        #expect(defaults.maximumStreamsPerClient == 32 && defaults.maximumStreams == 256)
        // As many costly requests in flight as the cores, at least two; on PostgreSQL at
        // most half the pool.
        #expect(
            defaults.limits.requestsPerClient == ServeConfiguration.defaultRequestsPerClient(databaseConnections: nil)
        )
        #expect(ServeConfiguration.defaultRequestsPerClient(databaseConnections: nil, cores: 1) == 2)
        #expect(ServeConfiguration.defaultRequestsPerClient(databaseConnections: nil, cores: 16) == 16)
        #expect(ServeConfiguration.defaultRequestsPerClient(databaseConnections: 8, cores: 16) == 4)
        #expect(ServeConfiguration.defaultRequestsPerClient(databaseConnections: 8, cores: 2) == 2)
        #expect(ServeConfiguration.defaultRequestsPerClient(databaseConnections: 1, cores: 2) == 1)
        let postgres = try ServeConfiguration.of([
            "DATA_MEDIATOR_DATABASE_URL": "postgres://u@localhost/d", "DATA_MEDIATOR_DATABASE_CONNECTIONS": "2",
        ])
        #expect(postgres.limits.requestsPerClient == 1)
        // A small stream limit brings the default share below it.
        #expect(try ServeConfiguration.of(["DATA_MEDIATOR_MAX_STREAMS": "10"]).maximumStreamsPerClient == 9)
        #expect(try ServeConfiguration.of(["DATA_MEDIATOR_CLIENT_REQUESTS": "3"]).limits.requestsPerClient == 3)
        // At most 1,000, as the other shares: 2^62 crashed `serve` on SQLite (its readers are
        // twice the share, an overflow), after the cursor secret was written.
        for refused in ["0", "1001", "4611686018427387904", "x"] {
            #expect(throws: (any Error).self) { try ServeConfiguration.of(["DATA_MEDIATOR_CLIENT_REQUESTS": refused]) }
        }
        #expect(SQLiteStore.readers(forClientShare: .max) == 64)
        // A rate of 100 a second by default; 0 is none.
        #expect(defaults.limits.requestRatePerClient == 100)
        #expect(try ServeConfiguration.of(["DATA_MEDIATOR_CLIENT_RATE": "0"]).limits.requestRatePerClient == nil)
        #expect(try ServeConfiguration.of(["DATA_MEDIATOR_CLIENT_RATE": "7"]).limits.requestRatePerClient == 7)
        #expect(throws: (any Error).self) { try ServeConfiguration.of(["DATA_MEDIATOR_CLIENT_RATE": "-1"]) }
        // Four writes in flight by default, the rest in the client's line.
        #expect(defaults.limits.writesPerClient == 4)
        #expect(try ServeConfiguration.of(["DATA_MEDIATOR_CLIENT_WRITES": "1"]).limits.writesPerClient == 1)
        for refused in ["0", "1001", "x"] {
            #expect(throws: (any Error).self) { try ServeConfiguration.of(["DATA_MEDIATOR_CLIENT_WRITES": refused]) }
        }
        // Twice the cores of reads in flight by default, at least four; on PostgreSQL at most
        // half the pool.
        #expect(defaults.limits.readsPerClient == ServeConfiguration.defaultReadsPerClient(databaseConnections: nil))
        #expect(ServeConfiguration.defaultReadsPerClient(databaseConnections: nil, cores: 1) == 4)
        #expect(ServeConfiguration.defaultReadsPerClient(databaseConnections: nil, cores: 8) == 16)
        #expect(ServeConfiguration.defaultReadsPerClient(databaseConnections: 10, cores: 8) == 5)
        #expect(ServeConfiguration.defaultReadsPerClient(databaseConnections: 1, cores: 2) == 1)
        #expect(postgres.limits.readsPerClient == 1)
        #expect(try ServeConfiguration.of(["DATA_MEDIATOR_CLIENT_READS": "64"]).limits.readsPerClient == 64)
        for refused in ["0", "1001", "x"] {
            #expect(throws: (any Error).self) { try ServeConfiguration.of(["DATA_MEDIATOR_CLIENT_READS": refused]) }
        }
        // No write rate by default; a number of writes a second when set.
        #expect(defaults.limits.writeRatePerClient == nil)
        #expect(try ServeConfiguration.of(["DATA_MEDIATOR_CLIENT_WRITE_RATE": "0"]).limits.writeRatePerClient == nil)
        #expect(try ServeConfiguration.of(["DATA_MEDIATOR_CLIENT_WRITE_RATE": "20"]).limits.writeRatePerClient == 20)
        for refused in ["-1", "x", "1000001"] {
            #expect(throws: (any Error).self) {
                try ServeConfiguration.of(["DATA_MEDIATOR_CLIENT_WRITE_RATE": refused])
            }
        }
    }

    @Test func aStreamShareOfTheWholeLimitIsRefused() {
        for share in ["256", "300"] {
            #expect(throws: (any Error).self) { try ServeConfiguration.of(["DATA_MEDIATOR_CLIENT_STREAMS": share]) }
        }
        #expect(throws: (any Error).self) { try ServeConfiguration.of(["DATA_MEDIATOR_CLIENT_REQUESTS": "0"]) }
    }

    /// `DATA_MEDIATOR_TRUSTED_PROXIES`: none by default; addresses and ranges; anything else
    /// refused naming the value (a proxy left out would make every user behind it one client).
    @Test func trustedProxiesAreAddressesAndRanges() throws {
        #expect(try ServeConfiguration.of([:]).trustedProxies.isEmpty)
        let proxies = try ServeConfiguration.of(["DATA_MEDIATOR_TRUSTED_PROXIES": " 10.0.0.0/8, ::1 "]).trustedProxies
        #expect(proxies == (try TrustedProxies(["10.0.0.0/8", "::1"])))
        do {
            _ = try ServeConfiguration.of(["DATA_MEDIATOR_TRUSTED_PROXIES": "10.0.0.1, proxy.local"])
            Issue.record("a host name was taken as a proxy")
        } catch {
            #expect("\(error)".contains("DATA_MEDIATOR_TRUSTED_PROXIES: 'proxy.local' is no IP address"), "\(error)")
        }
        #expect(throws: (any Error).self) { try ServeConfiguration.of(["DATA_MEDIATOR_TRUSTED_PROXIES": ","]) }
    }
}
