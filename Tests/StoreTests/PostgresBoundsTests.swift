import DataMediator
import DataMediatorSQL
import Foundation
import PostgresNIO
import Testing

@testable import DataMediatorPostgres

/// The database timeout is PostgreSQL's own bound on every statement, and a write that
/// has its connection is awaited to its commit: never answered `unavailable` once it may
/// have committed.
@Suite struct PostgresBoundsTests {
    /// A store over the fixture's database whose timeout is five seconds (short enough to
    /// wait out, long enough for a loaded machine to lease a connection within it), with its
    /// clients running while `body` runs; the fixture's own store (60 s) checks the results.
    static func withFiveSecondStore(
        logger: Logger = PostgresFixture.logger,
        _ body: (PostgresStore, PostgresStore) async throws -> Void
    ) async throws {
        let fixture = try await PostgresFixture()
        let store = try PostgresStore(
            url: fixture.url,
            maximumConnections: 2,
            timeout: .seconds(5),
            logger: logger
        )
        try await store.withClientsRunning { try await body(store, fixture.store) }
    }

    @Test func everySessionCarriesTheTimeoutAsItsStatementAndLockBounds() async throws {
        try await Self.withFiveSecondStore { store, _ in
            let settings = try await store.transactions.read { session in
                try await session.rows(
                    "SELECT current_setting('statement_timeout'), current_setting('lock_timeout')",
                    []
                )
            }
            #expect(settings.first == [.string("5s"), .string("5s")])
        }
    }

    @Test func aStatementLongerThanTheTimeoutIsStoppedByTheServer() async throws {
        try await Self.withFiveSecondStore { store, checker in
            let started = ContinuousClock.now
            let error = await #expect(throws: DataMediatorError.self) {
                try await store.transactions.write { session in
                    try await session.execute("SELECT pg_sleep(30)", [])
                }
            }
            #expect(error?.code == .unavailable)
            // The database was reached: the answer says it is busy, not unreachable.
            #expect(error?.message.contains("busy") == true, "\(String(describing: error))")
            #expect(ContinuousClock.now - started < .seconds(25))
            // The server ended it: no statement of it is still running.
            let running = try await checker.transactions.read { session in
                try await session.integer(
                    "SELECT COUNT(*) FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep(30)%'",
                    []
                )
            }
            #expect(running == 0)
        }
    }

    /// A one-statement read that gets no connection (every one of the pool's is held past
    /// the bound) is answered `unavailable` within the timeout, not when one frees up.
    @Test func aOneStatementReadThatGetsNoConnectionIsUnavailableWithinTheBound() async throws {
        try await Self.withFiveSecondStore { store, _ in
            let logger = PostgresFixture.logger
            // Both connections of the store's pool sleep for 15 s (past the server's bound,
            // lifted first).
            let holders = (0..<2).map { _ in
                Task {
                    try await store.primaryGate.withConnection { connection in
                        try await connection.query("SET statement_timeout = 0", logger: logger)
                        try await connection.query("SELECT pg_sleep(15)", logger: logger)
                        try await connection.query("RESET statement_timeout", logger: logger)
                    }
                }
            }
            try await Task.sleep(for: .seconds(1))
            let started = ContinuousClock.now
            let error = await #expect(throws: DataMediatorError.self) {
                try await store.readStatement { connection in
                    try await connection.query("SELECT 1", logger: logger).collect().count
                }
            }
            #expect(error?.code == .unavailable)
            #expect(ContinuousClock.now - started < .seconds(10))
            for holder in holders { _ = try await holder.value }
        }
    }

    @Test func aWriteLongerThanTheTimeoutIsAwaitedToItsCommit() async throws {
        try await Self.withFiveSecondStore { store, checker in
            try await checker.transactions.write { session in
                try await session.execute("CREATE TABLE slow_writes (id bigint PRIMARY KEY)", [])
            }
            // Three statements of 2 s each: every one within the bound, the write past it.
            try await store.transactions.write { session in
                try await session.execute("INSERT INTO slow_writes (id) VALUES (1)", [])
                for _ in 0..<3 { try await session.execute("SELECT pg_sleep(2)", []) }
            }
            let stored = try await checker.transactions.read { session in
                try await session.integer("SELECT COUNT(*) FROM slow_writes", [])
            }
            #expect(stored == 1)
        }
    }

    @Test func aWriteQueuedForTheVersionLockWaitsPastTheStatementBoundThenHasItBack() async throws {
        try await Self.withFiveSecondStore { store, _ in
            // One write holds the version lock for about 7 s, in statements shorter than 5 s.
            let holder = Task {
                try await store.transactions.write { session in
                    try await StoreVersion.lock(session)
                    for _ in 0..<12 { try await session.execute("SELECT pg_sleep(0.6)", []) }
                }
            }
            try await Task.sleep(for: .milliseconds(500))
            let started = ContinuousClock.now
            let bounds = try await store.transactions.write { session in
                try await StoreVersion.lock(session)
                return try await session.rows(
                    "SELECT current_setting('statement_timeout'), current_setting('lock_timeout')",
                    []
                )
            }
            try await holder.value
            #expect(ContinuousClock.now - started > .seconds(5), "the second write did not wait for the first")
            // The statement bound is the session's again; a lock wait under the version lock
            // is bounded short (StoreVersion.underLockWait: the write runs again instead).
            #expect(bounds.first == [.string("5s"), .string(StoreVersion.underLockWait)])
        }
    }
}
