import DataMediator
import DataMediatorSQL
import DataMediatorTesting
import Foundation
import PostgresNIO
import Testing

@testable import DataMediatorPostgres

/// PostgresNIO's pool crashes the process when more requests wait in it than it is opening
/// connections while it holds fewer than its minimum (after a connection closed, until it
/// has them all again): the gate lets one request wait at a time then, and only then.
@Suite struct PoolGateTests {
    /// Stands for a connection: held, so that its identity stays its own.
    final class Connection: Sendable {}

    static let connections = [Connection(), Connection(), Connection()]
    static let first = ObjectIdentifier(connections[0])
    static let second = ObjectIdentifier(connections[1])
    static let third = ObjectIdentifier(connections[2])

    /// What `count` requests arriving one after another are told.
    static func admit(_ count: Int, _ gate: inout PoolGate.Admission) -> [Bool] {
        (0..<count).map { _ in gate.admit() }
    }

    @Test func requestsGoInFreelyUntilALeasedConnectionCloses() {
        var gate = PoolGate.Admission(connections: 2)
        #expect(Self.admit(3, &gate) == [true, true, true])
        let leases = [gate.leased(Self.first), gate.leased(Self.first), gate.leased(Self.second)]
        #expect(leases == [true, false, true], "a connection is watched once")
        #expect(gate.waiting == 0 && !gate.guarding)

        gate.closed(Self.first)
        #expect(gate.guarding)
        #expect(Self.admit(2, &gate) == [true, false], "a second request waited while the pool is short")
        // The waiting request gets the open connection it had: the pool is still short.
        _ = gate.leased(Self.second)
        #expect(gate.guarding)
        #expect(Self.admit(2, &gate) == [true, false])
        // It gets a new one: the pool holds all its connections again.
        _ = gate.leased(Self.third)
        #expect(!gate.guarding)
        #expect(Self.admit(2, &gate) == [true, true])
    }

    /// Traffic below the pool's size goes on after a connection closed: a request that
    /// finds an idle connection among the open ones never waits in the pool (a probe saw
    /// two reads at once refused for minutes, since such traffic leases few connections).
    @Test func whileGuardedRequestsThatFindAnIdleConnectionGoIn() {
        var gate = PoolGate.Admission(connections: 3)
        #expect(Self.admit(3, &gate) == [true, true, true])
        for connection in [Self.first, Self.second, Self.third] { _ = gate.leased(connection) }
        for connection in [Self.first, Self.second, Self.third] { gate.released(connection) }
        gate.closed(Self.first)
        #expect(gate.guarding)
        // Two open connections idle: two requests find one each, one more waits; no other.
        #expect(Self.admit(4, &gate) == [true, true, true, false])
        _ = gate.leased(Self.second)
        _ = gate.leased(Self.third)
        #expect(Self.admit(1, &gate) == [false], "both held and one waiting: another would wait too")
        gate.released(Self.second)
        #expect(Self.admit(2, &gate) == [true, false], "one connection idle: one more goes in")
    }

    /// A connection that closes gives back the holds of the requests on it: a statement
    /// sent as it closed may never be answered, and its request, abandoned, never gives its
    /// lease back (review 84 F3: each such hold stayed counted, and every later guarded
    /// spell let fewer requests in). One that does end later gives back nothing twice.
    @Test func aClosedConnectionGivesBackTheHoldsOnIt() {
        var gate = PoolGate.Admission(connections: 2)
        #expect(Self.admit(3, &gate) == [true, true, true])
        _ = gate.leased(Self.first)
        _ = gate.leased(Self.first)
        _ = gate.leased(Self.second)
        gate.released(Self.first)
        #expect(gate.holding == 2)
        gate.closed(Self.first)
        #expect(gate.holding == 1, "the hold on the closed connection stayed counted")
        gate.released(Self.first)
        #expect(gate.holding == 1, "a hold given back twice")
        gate.released(Self.second)
        #expect(gate.holding == 0)
        // Guarded now with one open connection, idle: a request finds it, one more waits.
        #expect(Self.admit(3, &gate) == [true, true, false])
    }

    @Test func aFailureOfThePoolGuardsItAndARequestGivenUpDoesNot() {
        var gate = PoolGate.Admission(connections: 2)
        #expect(Self.admit(2, &gate) == [true, true])
        gate.gaveUp(failed: false)
        #expect(!gate.guarding)
        gate.gaveUp(failed: true)
        #expect(gate.guarding && gate.waiting == 0)
        #expect(Self.admit(2, &gate) == [true, false])
        gate.gaveUp(failed: false)
        #expect(Self.admit(1, &gate) == [true], "the next request may wait once the one waiting is gone")
    }

    @Test func aPoolThatOpensConnectionsOnDemandIsNeverGuarded() {
        var gate = PoolGate.Admission(connections: 0)
        #expect(Self.admit(1, &gate) == [true])
        _ = gate.leased(Self.first)
        gate.closed(Self.first)
        #expect(Self.admit(1, &gate) == [true])
        gate.gaveUp(failed: true)
        #expect(!gate.guarding)
        #expect(Self.admit(2, &gate) == [true, true])
    }

    /// Against a real server: connections ended by the server guard the store's pool, and
    /// the store serves again and stops guarding once it leased as many as the pool keeps.
    @Test func aStoreWhoseConnectionsTheServerEndsIsGuardedUntilItHasThemAllAgain() async throws {
        let logs = CapturedLogs()
        try await PostgresBoundsTests.withFiveSecondStore(logger: logs.logger) { store, checker in
            let gate = store.readerGate
            // Two reads at once lease both of the pool's connections.
            async let one = store.transactions.read { session in
                try await session.integer("SELECT 1 FROM pg_sleep(0.3)")
            }
            async let two = store.transactions.read { session in
                try await session.integer("SELECT 2 FROM pg_sleep(0.3)")
            }
            #expect(try await one + two == 3)
            #expect(!gate.isGuarding)

            let ended = try await checker.transactions.write { session in
                try await session.integer(
                    """
                    SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
                    WHERE datname = current_database() AND pid <> pg_backend_pid()
                    """
                )
            }
            #expect(ended >= 2)
            let deadline = ContinuousClock.now + .seconds(5)
            while !gate.isGuarding, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
            #expect(gate.isGuarding)
            // Logged once, saying why.
            let guarded = logs.records.filter { $0.message.hasPrefix("the database's pool is guarded") }
            #expect(guarded.count == 1 && guarded.first?.metadata["why"] != nil, "\(guarded)")

            // Reads one after another lease the pool's new connections, and it is whole again.
            var served = 0
            while gate.isGuarding, served < 200 {
                async let one = store.transactions.read { session in
                    try await session.integer("SELECT 1 FROM pg_sleep(0.05)")
                }
                async let two = store.transactions.read { session in
                    try await session.integer("SELECT 1 FROM pg_sleep(0.05)")
                }
                served += Int((try? await one + two) ?? 0)
            }
            #expect(!gate.isGuarding)
        }
    }
}
