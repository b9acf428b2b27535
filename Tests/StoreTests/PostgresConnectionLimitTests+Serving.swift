import DataMediator
import DataMediatorPostgres
import DataMediatorSQL
import Foundation
import PostgresNIO
import Testing

extension PostgresConnectionLimitTests {
    /// A limit lowered while the service runs, below its pool (which lost its connections
    /// and is refused one of them again): PostgresNIO 1.33.2's pool then lends none, not
    /// even an open one, so reads answer `unavailable` until the server takes one more;
    /// they and readiness name the limit, not a reconnect that never ends.
    @Test(.timeLimit(.minutes(3))) func aLimitLoweredBelowThePoolWhileServingIsNamed() async throws {
        let url = try await limitedDatabase(roleLimit: -1)
        let name = try #require(URLComponents(string: url)?.path.dropFirst()).description
        let admin = try await PostgresFixture()
        let store = try PostgresStore(
            url: url,
            maximumConnections: 3,
            timeout: .seconds(2),
            poolSizeSetting: "DATA_MEDIATOR_DATABASE_CONNECTIONS",
            logger: PostgresFixture.logger
        )
        try await store.withClientsRunning {
            try await store.prepare()
            #expect(await store.readinessProblem() == nil)
            for statement in [
                "ALTER DATABASE \(name) CONNECTION LIMIT 2",
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(name)'",
            ] {
                try await admin.store.primary.query(PostgresQuery(unsafeSQL: statement))
            }
            let deadline = ContinuousClock.now + .seconds(60)
            var problem = await store.readinessProblem()
            while problem?.contains("refuses more connections") != true, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
                problem = await store.readinessProblem()
            }
            #expect(
                problem?.contains("The database refuses more connections (too many clients") == true,
                "\(problem ?? "ready")"
            )
            #expect(
                problem?.contains("until it has opened all 3 (DATA_MEDIATOR_DATABASE_CONNECTIONS); retry later.")
                    == true
            )
            let refused = await #expect(throws: DataMediatorError.self) {
                _ = try await store.transactions.read { _ in 0 }
            }
            #expect(refused?.code == .unavailable)
            #expect(refused?.message.contains("refuses more connections") == true, "\(String(describing: refused))")

            // The server takes one more: the pool opens it and serves again.
            try await admin.store.primary.query(PostgresQuery(unsafeSQL: "ALTER DATABASE \(name) CONNECTION LIMIT 3"))
            while await store.readinessProblem() != nil {
                try #require(ContinuousClock.now < deadline + .seconds(60), "never ready again")
                try await Task.sleep(for: .milliseconds(100))
            }
        }
    }
}
