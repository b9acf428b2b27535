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
        let system = "postgres://u:p@db/app?sslrootcert=system"
        #expect(try ServeConfiguration.of(["DATA_MEDIATOR_DATABASE_URL": system]).databaseURL == system)
    }
}
