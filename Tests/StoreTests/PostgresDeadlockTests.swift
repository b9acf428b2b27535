import DataMediator
import DataMediatorSQL
import DataMediatorTesting
import PostgresNIO
import Synchronization
import Testing

@testable import DataMediatorPostgres

/// A transaction PostgreSQL ends to break a deadlock (40P01: a write of the service and
/// another program's transaction each holding a lock the other wants) is the answer a
/// client can retry, `unavailable` (503), not a server error: nothing of it was stored.
@Suite struct PostgresDeadlockTests {
    @Test func aDeadlockIsARetry() async throws {
        let fixture = try await PostgresFixture()
        let other = try await PostgresFixture(sharing: fixture)
        try await fixture.store.primary.query("CREATE TABLE pair (id int PRIMARY KEY, v int)")
        try await fixture.store.primary.query("INSERT INTO pair VALUES (1, 0), (2, 0)")
        // Two transactions (one each client) lock one row each, wait until both hold theirs,
        // then each wants the other's: PostgreSQL ends one.
        let holding = Holding()
        let logger = fixture.store.logger
        @Sendable func crossing(_ client: PostgresClient, _ first: Int, _ second: Int) async -> (any Error)? {
            do {
                try await client.withConnection { connection in
                    try await connection.query("BEGIN", logger: logger)
                    do {
                        try await connection.query("UPDATE pair SET v = v + 1 WHERE id = \(first)", logger: logger)
                        holding.count.withLock { $0 += 1 }
                        let deadline = ContinuousClock.now + .seconds(30)
                        while holding.count.withLock({ $0 }) < 2, ContinuousClock.now < deadline {
                            try await Task.sleep(for: .milliseconds(10))
                        }
                        try await connection.query("UPDATE pair SET v = v + 1 WHERE id = \(second)", logger: logger)
                        try await connection.query("COMMIT", logger: logger)
                    } catch {
                        _ = try? await connection.query("ROLLBACK", logger: logger)
                        throw error
                    }
                }
                return nil
            } catch {
                return error
            }
        }
        let (first, second) = (fixture.store, other.store)
        async let one = crossing(first.primary, 1, 2)
        async let two = crossing(second.primary, 2, 1)
        let errors = await [one, two].compactMap { $0 }
        let error = try #require(errors.first, "one of the two was ended")
        #expect((error as? PSQLError)?.serverInfo?[.sqlState] == "40P01", "\(String(reflecting: error))")
        let answered = fixture.store.answer(to: error, leased: true)
        let refusal = try #require(answered as? DataMediatorError, "\(answered)")
        #expect(refusal.code == .unavailable)
        #expect(refusal.message.contains("retry"))
    }
}

/// How many of the two transactions hold their first row.
private final class Holding: Sendable {
    let count = Mutex(0)
}
