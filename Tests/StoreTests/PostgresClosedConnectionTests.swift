import DataMediator
import DataMediatorSQL
import Foundation
import PostgresNIO
import Synchronization
import Testing

@testable import DataMediatorPostgres

/// A call whose connection closes under it is answered, even where PostgresNIO never
/// answers a statement (one written to a connection that had just closed): writes,
/// transactions and one-statement reads end within moments, `unavailable` (nothing was
/// committed) rather than waiting forever and holding their request.
@Suite struct PostgresClosedConnectionTests {
    /// Runs `body` in a task of its own and fails when it has not ended within 30 s (the
    /// task is then abandoned: a task group would wait for it forever).
    static func answered(_ body: @escaping @Sendable () async throws -> Void) async throws {
        let ended = Ended()
        Task {
            try? await body()
            ended.value.store(true, ordering: .relaxed)
        }
        let deadline = ContinuousClock.now + .seconds(30)
        while !ended.value.load(ordering: .relaxed), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let answered = ended.value.load(ordering: .relaxed)
        #expect(answered, "the call was not answered within 30 s of its connection closing")
    }

    @Test func aCallWhoseConnectionClosesUnderItIsAnsweredUnavailable() async throws {
        try await PostgresBoundsTests.withFiveSecondStore { store, _ in
            // Each body closes its own connection and then waits as a statement that is
            // never answered does.
            let calls: [@Sendable () async throws -> Void] = [
                { _ = try await store.write { connection, _ in try await Self.closeAndWait(connection) } },
                { _ = try await store.read { connection in try await Self.closeAndWait(connection) } },
                { _ = try await store.readStatement { connection in try await Self.closeAndWait(connection) } },
            ]
            for call in calls {
                try await Self.answered {
                    let error = await #expect(throws: DataMediatorError.self) { try await call() }
                    #expect(error?.code == .unavailable)
                }
            }
            // The pool replaces the closed connections: the store serves again.
            let one = try await store.transactions.read { session in try await session.integer("SELECT 1", []) }
            #expect(one == 1)
        }
    }

    /// A read whose connection fails at its `COMMIT` (a standby ends it in a recovery
    /// conflict) stored nothing: `unavailable`, to be read again, never a write's
    /// `outcomeUnknown` (which a probe saw a `GET` answered).
    @Test func aReadWhoseCommitFailsIsUnavailable() async throws {
        try await PostgresBoundsTests.withFiveSecondStore { store, _ in
            for _ in 0..<5 {
                let error = await #expect(throws: DataMediatorError.self) {
                    try await store.read { connection in
                        let rows = try await connection.query("SELECT pg_backend_pid()", logger: PostgresFixture.logger)
                        var pid: Int32 = 0
                        for try await value in rows.decode(Int32.self) { pid = value }
                        _ = try await store.primary.query("SELECT pg_terminate_backend(\(pid))")
                        return 1
                    }
                }
                #expect(error?.code == .unavailable, "\(String(describing: error))")
            }
        }
    }

    /// A connection left inside an aborted transaction (a rollback a standby's cancel
    /// landed on) answers every statement "current transaction is aborted": the first call
    /// that meets it is `unavailable` and closes it, and the pool serves on with others,
    /// rather than every later call on it failing (a probe saw reads answered 500 so).
    @Test func aConnectionLeftInAnAbortedTransactionIsClosedWhenMet() async throws {
        let fixture = try await PostgresFixture()
        // A bound a loaded machine never reaches: a first call past it would be abandoned,
        // and its work would hold the pool's one connection from the calls after it (the
        // whole suite's load did that once with the default 5 s).
        let store = try PostgresStore(
            url: fixture.url,
            maximumConnections: 1,
            timeout: .seconds(30),
            logger: PostgresFixture.logger
        )
        try await store.withClientsRunning {
            _ = try? await store.readStatement { connection in
                try await connection.query("START TRANSACTION", logger: PostgresFixture.logger)
                try await connection.query("SELECT 1 / 0", logger: PostgresFixture.logger)
                return 0
            }
            let met = await #expect(throws: DataMediatorError.self) {
                try await store.readStatement { connection in
                    try await connection.query("SELECT 1", logger: PostgresFixture.logger)
                    return 1
                }
            }
            #expect(met?.code == .unavailable, "\(String(describing: met))")
            for _ in 0..<3 {
                let one = try await store.transactions.read { session in try await session.integer("SELECT 1", []) }
                #expect(one == 1)
            }
        }
    }

    /// An import's transaction is not leased through the watch as a whole (its work is not
    /// `Sendable`): each of its statements is watched, and one that PostgresNIO never
    /// answers after its connection closed ends `unavailable`, where a check of the
    /// connection before the statement could miss a close just after it (review 109 #1).
    @Test func aBulkStatementWhoseConnectionClosesIsAnswered() async throws {
        let fixture = try await PostgresFixture()
        try await Self.answered {
            let error = await #expect(throws: DataMediatorError.self) {
                try await fixture.store.bulkWrite { connection, watch in
                    try await watch.statement(on: connection) { try await Self.closeAndWait(connection) }
                }
            }
            #expect(error?.code == .unavailable, "\(String(describing: error))")
        }
        let one = try await fixture.store.transactions.read { session in try await session.integer("SELECT 1", []) }
        #expect(one == 1)
    }

    /// Closes `connection`, then waits as PostgresNIO does for the answer to a statement
    /// written after the close: forever, deaf to cancellation (its `EventLoopFuture.get()`
    /// is). The task is abandoned.
    static func closeAndWait(_ connection: PostgresConnection) async throws -> Int {
        try await connection.close()
        await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }
        return 0
    }
}

/// Whether a call ended.
private final class Ended: Sendable {
    let value = Atomic<Bool>(false)
}
