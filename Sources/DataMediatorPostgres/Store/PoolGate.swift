import DataMediator
import PostgresNIO
import Synchronization

/// The way to a PostgreSQL client's pool, which keeps the pool from crashing the process
/// while its database cannot be reached and while it opens its connections again.
///
/// PostgresNIO 1.33.2's pool (the only version at hand) stops the process with a failed
/// precondition (`minimumConcurrentConnections <= stats.active`, in
/// `createNewDemandConnectionIfPossible`) when a lease request finds no idle connection,
/// more requests wait than connections are being opened, and the pool holds fewer
/// connections than its minimum, as here, where its minimum is its maximum. It holds fewer
/// once a connection attempt failed (it drops every failed attempt but the one it retries)
/// and until it has opened them all again (one at a time while requests wait): every
/// database outage met by more than one request at once. A pool that keeps fewer
/// connections open arms a timer on each release (docs/performance.md), so the store
/// keeps the minimum and guards the pool instead: from the moment a connection it leased
/// closes (or the pool fails a request) until it has leased as many open connections as
/// the pool holds, it lets one request wait in the pool at a time and answers the others
/// `unavailable` at once. The pool opens at least one connection all that time, so one
/// waiting request never makes it open another on demand.
final class PoolGate: Sendable {
    private struct State {
        /// Requests let into the pool that have no connection yet.
        var waiting = 0
        /// Whether the pool may hold fewer connections than its minimum: a leased
        /// connection closed, or the pool failed a request, and not every connection has
        /// been leased since.
        var guarding = false
        /// The connections leased so far that are open, each watched for its close.
        var open: Set<ObjectIdentifier> = []
    }

    /// The client whose pool this guards.
    let client: PostgresClient
    /// How many connections the pool keeps open (0: it opens them on demand, and nothing
    /// needs guarding).
    let connections: Int
    private let state = Mutex(State())

    init(_ client: PostgresClient, connections: Int) {
        self.client = client
        self.connections = connections
    }

    /// Whether the gate lets one request wait at a time.
    var isGuarding: Bool { state.withLock { $0.guarding } }

    /// Runs `body` on a connection leased from the pool.
    ///
    /// - Throws: `unavailable` at once while the database is out of reach and another
    ///   request waits for a connection; what the pool or `body` throws otherwise.
    func withConnection<Result: Sendable>(
        _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        let admitted = state.withLock { state in
            guard !state.guarding || state.waiting == 0 else { return false }
            state.waiting += 1
            return true
        }
        guard admitted else {
            throw DataMediatorError(.unavailable, "The database cannot be reached right now; retry shortly.")
        }
        let leased = Atomic<Bool>(false)
        do {
            return try await client.withConnection { connection in
                leased.store(true, ordering: .relaxed)
                self.leased(connection)
                return try await body(connection)
            }
        } catch {
            if !leased.load(ordering: .relaxed) {
                // A request given up (its time ran out, its client left) says nothing of the
                // database; an error of the pool's does.
                let failed = !(error is CancellationError) && !Task.isCancelled
                state.withLock { state in
                    state.waiting -= 1
                    if failed, connections > 0 { state.guarding = true }
                }
            }
            throw error
        }
    }

    private func leased(_ connection: PostgresConnection) {
        let key = ObjectIdentifier(connection)
        let first = state.withLock { state in
            state.waiting -= 1
            let first = state.open.insert(key).inserted
            if state.open.count >= connections { state.guarding = false }
            return first
        }
        guard first else { return }
        connection.closeFuture.whenComplete { [self] _ in
            state.withLock { state in
                state.open.remove(key)
                if connections > 0 { state.guarding = true }
            }
        }
    }
}
