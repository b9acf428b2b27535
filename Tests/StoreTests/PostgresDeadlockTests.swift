import DataMediator
import DataMediatorSQL
import DataMediatorTesting
import PostgresNIO
import Testing

@testable import DataMediatorPostgres

/// A transaction PostgreSQL ends to break a deadlock (40P01: a write of the service and
/// another program's transaction each holding a lock the other wants) is the answer a
/// client can retry, `unavailable` (503), not a server error: nothing of it was stored.
@Suite struct PostgresDeadlockTests {
    @Test func aDeadlockIsARetry() async throws {
        let fixture = try await PostgresFixture(connections: 2)
        try await fixture.store.primary.query("CREATE TABLE pair (id int PRIMARY KEY, v int)")
        try await fixture.store.primary.query("INSERT INTO pair VALUES (1, 0), (2, 0)")
        // Two transactions lock one row each, then each wants the other's: PostgreSQL ends one.
        func crossing(_ first: Int, _ second: Int) async -> (any Error)? {
            do {
                try await fixture.store.primary.withConnection { connection in
                    let logger = fixture.store.logger
                    try await connection.query("BEGIN", logger: logger)
                    do {
                        try await connection.query("UPDATE pair SET v = v + 1 WHERE id = \(first)", logger: logger)
                        try await connection.query("SELECT pg_sleep(0.5)", logger: logger)
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
        async let one = crossing(1, 2)
        async let two = crossing(2, 1)
        let errors = await [one, two].compactMap { $0 }
        let error = try #require(errors.first, "one of the two was ended")
        #expect((error as? PSQLError)?.serverInfo?[.sqlState] == "40P01", "\(String(reflecting: error))")
        let answered = fixture.store.answer(to: error, leased: true)
        let refusal = try #require(answered as? DataMediatorError, "\(answered)")
        #expect(refusal.code == .unavailable)
        #expect(refusal.message.contains("retry"))
    }
}
