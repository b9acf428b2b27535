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

    @Test func aPoolSizeOrSwitchOutOfRangeIsRefusedByName() {
        for (name, value) in [
            ("DATA_MEDIATOR_DATABASE_CONNECTIONS", "0"), ("DATA_MEDIATOR_DATABASE_CONNECTIONS", "1001"),
            ("DATA_MEDIATOR_DATABASE_CONNECTIONS", "many"), ("DATA_MEDIATOR_DATABASE_PREPARE", "yes"),
            ("DATA_MEDIATOR_DATABASE_URL", "postgres://u:secret@db:99999/app"),
            ("DATA_MEDIATOR_DATABASE_URL", "mysql://u:secret@db/app"),
            ("DATA_MEDIATOR_DATABASE_READ_URL", "postgres:///app"),
            // The store speaks no TLS: a URL that asks for it is not connected in the clear,
            // and a parameter the store would ignore is not ignored silently.
            ("DATA_MEDIATOR_DATABASE_URL", "postgres://u:secret@db/app?sslmode=require"),
            ("DATA_MEDIATOR_DATABASE_URL", "postgres://u:secret@db/app?sslmode=verify-full"),
            ("DATA_MEDIATOR_DATABASE_READ_URL", "postgres://u:secret@db/app?application_name=x"),
        ] {
            #expect {
                try ServeConfiguration.of([name: value])
            } throws: { error in
                "\(error)".contains(name) && !"\(error)".contains("secret")
            }
        }
        let set = try? ServeConfiguration.of(["DATA_MEDIATOR_DATABASE_URL": "postgresql://u:p@db:6432/app"])
        #expect(set?.databaseURL == "postgresql://u:p@db:6432/app")
        let plain = try? ServeConfiguration.of(["DATA_MEDIATOR_DATABASE_URL": "postgres://u:p@db/app?sslmode=disable"])
        #expect(plain?.databaseURL == "postgres://u:p@db/app?sslmode=disable")
    }
}
