import Testing

@testable import data_mediator

/// `DATA_MEDIATOR_DATABASE_CONNECTIONS` and `DATA_MEDIATOR_DATABASE_PREPARE`: the PostgreSQL
/// pool's size and whether its connections prepare reads.
@Suite struct DatabaseSettingsTests {
    @Test func thePoolHoldsEightConnectionsThatPrepareReadsByDefault() throws {
        let defaults = try ServeConfiguration.of([:])
        #expect(defaults.databaseConnections == 8 && defaults.databasePrepare)
        let set = try ServeConfiguration.of([
            "DATA_MEDIATOR_DATABASE_CONNECTIONS": "4", "DATA_MEDIATOR_DATABASE_PREPARE": "FALSE",
        ])
        #expect(set.databaseConnections == 4 && !set.databasePrepare)
    }

    @Test func aPoolSizeOrSwitchOutOfRangeIsRefusedByName() throws {
        for (name, value) in [
            ("DATA_MEDIATOR_DATABASE_CONNECTIONS", "0"), ("DATA_MEDIATOR_DATABASE_CONNECTIONS", "1001"),
            ("DATA_MEDIATOR_DATABASE_CONNECTIONS", "many"), ("DATA_MEDIATOR_DATABASE_PREPARE", "yes"),
            ("DATA_MEDIATOR_DATABASE_URL", "postgres://u:secret@db:99999/app"),
            ("DATA_MEDIATOR_DATABASE_URL", "mysql://u:secret@db/app"),
            ("DATA_MEDIATOR_DATABASE_READ_URL", "postgres:///app"),
            // A parameter the store would ignore is not ignored silently, nor one that checks
            // less than it seems to, nor a file that cannot be read.
            ("DATA_MEDIATOR_DATABASE_READ_URL", "postgres://u:secret@db/app?application_name=x"),
            ("DATA_MEDIATOR_DATABASE_URL", "postgres://u:secret@db/app?sslmode=verify_full"),
            ("DATA_MEDIATOR_DATABASE_URL", "postgres://u:secret@db/app?sslmode=require&sslmode=disable"),
            ("DATA_MEDIATOR_DATABASE_URL", "postgres://u:secret@db/app?sslmode="),
            ("DATA_MEDIATOR_DATABASE_URL", "postgres://u:secret@db/app?sslmode=verify-full&sslrootcert=/no/ca.crt"),
            ("DATA_MEDIATOR_DATABASE_URL", "postgres://u:secret@db/app?sslmode=verify-ca&sslrootcert=/etc/hostname"),
            ("DATA_MEDIATOR_DATABASE_URL", "postgres://u:secret@db/app?sslmode=prefer&sslrootcert=/etc/hostname"),
            ("DATA_MEDIATOR_DATABASE_URL", "postgres://u:secret@db/app?sslmode=require&sslrootcert=system"),
            ("DATA_MEDIATOR_DATABASE_URL", "postgres://u:secret@db/app?sslcert=/etc/hostname"),
            ("DATA_MEDIATOR_DATABASE_URL", "postgres://u:secret@db/app?sslmode=disable&sslcert=a&sslkey=b"),
            // A '?' or '#' in the password, not percent-encoded, would make the rest of it a
            // parameter or a dropped part: refused without repeating it.
            ("DATA_MEDIATOR_DATABASE_URL", "postgres://u:secret@db/app#?sslmode=verify-full"),
            ("DATA_MEDIATOR_DATABASE_URL", "postgres://postgres:2024?secret@db:5432/app?sslmode=require"),
            ("DATA_MEDIATOR_DATABASE_URL", "postgres://u:2024#secret@db/app"),
            ("DATA_MEDIATOR_DATABASE_URL", "postgres://u:secret@db/app?sslrootcert=/etc/ca%00.pem&sslmode=verify-ca"),
        ] {
            #expect {
                try ServeConfiguration.of([name: value])
            } throws: { error in
                "\(error)".contains(name) && !"\(error)".contains("secret")
            }
        }
        let set = try? ServeConfiguration.of(["DATA_MEDIATOR_DATABASE_URL": "postgresql://u:p@db:6432/app"])
        #expect(set?.databaseURL == "postgresql://u:p@db:6432/app")
        // libpq's modes (PostgresTLSTests connects with each).
        for mode in ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"] {
            let url = "postgres://u:p@db/app?sslmode=\(mode)"
            #expect(try ServeConfiguration.of(["DATA_MEDIATOR_DATABASE_URL": url]).databaseURL == url)
        }
        // A scheme in capitals, an IPv6 address and a trailing '&' are read as libpq reads them.
        for url in ["POSTGRES://u:p@db/app", "postgres://u:p@[::1]:5433/app", "postgres://u:p@db/app?sslmode=require&"]
        {
            #expect(try ServeConfiguration.of(["DATA_MEDIATOR_DATABASE_URL": url]).databaseURL == url)
        }
        let system = "postgres://u:p@db/app?sslrootcert=system"
        #expect(try ServeConfiguration.of(["DATA_MEDIATOR_DATABASE_URL": system]).databaseURL == system)
    }
}

/// `DATA_MEDIATOR_READY_MAX_LAG_SECONDS`: the read replica's lag past which `/ready` fails.
@Suite struct ReadyLagSettingTests {
    @Test func theLagBoundNeedsAReadReplicaAndAPositiveNumberOfSeconds() throws {
        let replica = [
            "DATA_MEDIATOR_DATABASE_URL": "postgres://u:p@db/app",
            "DATA_MEDIATOR_DATABASE_READ_URL": "postgres://u:p@replica/app",
        ]
        #expect(
            try ServeConfiguration.of(replica).readyMaximumLagSeconds == nil,
            "not held against readiness by default"
        )
        let bounded = try ServeConfiguration.of(replica.merging(["DATA_MEDIATOR_READY_MAX_LAG_SECONDS": "30"]) { $1 })
        #expect(bounded.readyMaximumLagSeconds == 30)
        for value in ["0", "86401", "soon", "-1"] {
            #expect {
                try ServeConfiguration.of(replica.merging(["DATA_MEDIATOR_READY_MAX_LAG_SECONDS": value]) { $1 })
            } throws: { "\($0)".contains("DATA_MEDIATOR_READY_MAX_LAG_SECONDS") }
        }
        // A bound with no replica to hold it against is said, not ignored.
        #expect {
            try ServeConfiguration.of(["DATA_MEDIATOR_READY_MAX_LAG_SECONDS": "30"])
        } throws: { "\($0)".contains("DATA_MEDIATOR_DATABASE_READ_URL") }
    }
}
