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
/// the pool holds, it lets in the requests that find an idle connection among those it
/// knows open, and one request more to wait in the pool, and answers the others
/// `unavailable` at once. The pool opens at least one connection all that time, so one
/// waiting request never makes it open another on demand.
final class PoolGate: Sendable {
    /// The gate's rule, apart from the pool it guards.
    struct Admission {
        /// How many connections the pool keeps open (0: it opens them on demand, and
        /// nothing needs guarding).
        let connections: Int
        /// Requests let into the pool that have no connection yet.
        private(set) var waiting = 0
        /// Requests that hold a connection.
        private(set) var holding = 0
        /// Whether the pool may hold fewer connections than its minimum: a leased
        /// connection closed, or the pool failed a request, and not every connection has
        /// been leased since.
        private(set) var guarding = false
        /// The connections leased so far that are open.
        private var open: Set<ObjectIdentifier> = []
        /// How many requests hold each connection: a connection that closes gives their
        /// holds back (a statement sent just as it closed may never be answered, and its
        /// request, abandoned, never gives its lease back: each such hold stayed counted).
        private var held: [ObjectIdentifier: Int] = [:]

        init(connections: Int) {
            self.connections = connections
        }

        /// Lets a request into the pool (false: answer it `unavailable`). While guarding,
        /// requests that find an idle connection among the open ones leased before never
        /// wait in the pool, so traffic below the pool's size goes on after a connection
        /// closed; past them one request may wait at a time.
        mutating func admit() -> Bool {
            guard !guarding || waiting == 0 || holding + waiting <= open.count else { return false }
            waiting += 1
            return true
        }

        /// An admitted request got `connection`; answers whether it is one not seen before.
        mutating func leased(_ connection: ObjectIdentifier) -> Bool {
            waiting -= 1
            holding += 1
            held[connection, default: 0] += 1
            let first = open.insert(connection).inserted
            if open.count >= connections { guarding = false }
            return first
        }

        /// A request gave back `connection`, which it leased (nothing when the connection
        /// closed meanwhile: its close gave the hold back).
        mutating func released(_ connection: ObjectIdentifier) {
            guard let count = held[connection] else { return }
            held[connection] = count > 1 ? count - 1 : nil
            holding -= 1
        }

        /// An admitted request ended without a connection: `failed` when the pool failed
        /// it (a request given up, its time run out or its client gone, says nothing of
        /// the database). Answers whether the gate began guarding.
        @discardableResult
        mutating func gaveUp(failed: Bool) -> Bool {
            waiting -= 1
            return failed && startGuarding()
        }

        /// A leased connection closed. Answers whether the gate began guarding.
        @discardableResult
        mutating func closed(_ connection: ObjectIdentifier) -> Bool {
            open.remove(connection)
            holding -= held.removeValue(forKey: connection) ?? 0
            return startGuarding()
        }

        /// Guards the pool (one that opens connections on demand needs none); answers
        /// whether it was not guarded before.
        private mutating func startGuarding() -> Bool {
            guard connections > 0, !guarding else { return false }
            guarding = true
            return true
        }
    }

    /// The client whose pool this guards.
    let client: PostgresClient
    /// Which server the pool reaches: "database" (the only one), "primary" or "read replica".
    let database: String
    /// The pool's failed connection attempts, which its log counts.
    let attempts: PoolLogHandler.ConnectAttempts
    /// What the pool's size is made of, for an operator: the setting that gives it, and
    /// what the pool holds over it (the change listener's connection), as a refusal names them.
    let size: String
    private let logger: Logger
    private let state: Mutex<Admission>

    init(
        _ client: PostgresClient,
        connections: Int,
        database: String = "database",
        attempts: PoolLogHandler.ConnectAttempts = .init(),
        size: String = "",
        logger: Logger = Logger(label: "data-mediator")
    ) {
        self.client = client
        self.database = database
        self.attempts = attempts
        self.size = size
        self.logger = logger
        self.state = Mutex(Admission(connections: connections))
    }

    /// "The database", "The database's primary" or "The database's read replica", as an
    /// answer names it.
    var named: String { database == "database" ? "The database" : "The database's \(database)" }

    /// "The connection to the database" (or to its primary, or its read replica).
    var connectionNamed: String {
        "The connection to the database" + (database == "database" ? "" : "'s \(database)")
    }

    /// Whether the gate lets one request wait at a time.
    var isGuarding: Bool { state.withLock { $0.guarding } }

    /// What a request that got no connection is told while the server refuses the pool one
    /// more (SQLSTATE 53300: its `max_connections`, or a connection limit of the database
    /// or user, is taken), nil otherwise. PostgresNIO 1.33.2's pool lends no connection,
    /// not even an open idle one, while its attempts to open one fail, so no request is
    /// served until the server takes one more.
    var refusedConnections: String? {
        guard attempts.lastError?.contains("sqlState: 53300") == true else { return nil }
        let connections = state.withLock { $0.connections }
        return "\(named) refuses more connections (too many clients: its max_connections, or a connection limit "
            + "of its database or user, is taken), and the pool lends none until it has opened all \(connections)"
            + (size.isEmpty ? "" : " (\(size))") + "; retry later."
    }

    /// What a request that got no connection within its time is told.
    var noConnectionInTime: String {
        refusedConnections ?? "\(named) did not answer in time; retry shortly."
    }

    /// Runs `body` on a connection leased from the pool.
    ///
    /// - Throws: `unavailable` at once while the pool is guarded and the request would
    ///   wait for a connection behind another; what the pool or `body` throws otherwise.
    func withConnection<Result: Sendable>(
        _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        guard state.withLock({ $0.admit() }) else {
            throw DataMediatorError(
                .unavailable,
                refusedConnections
                    ?? "\(named) is being reconnected after a connection closed or failed; retry shortly."
            )
        }
        let leased = Mutex<ObjectIdentifier?>(nil)
        // Counted free once the pool has it back (after its `withConnection`), never before:
        // a request let in for an idle connection must find one.
        defer { if let connection = leased.withLock({ $0 }) { state.withLock { $0.released(connection) } } }
        do {
            return try await client.withConnection { connection in
                leased.withLock { $0 = ObjectIdentifier(connection) }
                self.leased(connection)
                return try await body(connection)
            }
        } catch {
            if leased.withLock({ $0 }) == nil {
                let failed = !(error is CancellationError) && !Task.isCancelled
                if state.withLock({ $0.gaveUp(failed: failed) }) { noteGuarding(why: String(reflecting: error)) }
            }
            throw error
        }
    }

    private func leased(_ connection: PostgresConnection) {
        let key = ObjectIdentifier(connection)
        guard state.withLock({ $0.leased(key) }) else { return }
        // A connection not seen before: the first after the server came back, if attempts
        // failed meanwhile (the pool logs those, once each 10 s).
        let failed = attempts.connected()
        if failed > 0 {
            logger.notice(
                "connected to the \(database) again",
                metadata: ["database": "\(database)", "failed_attempts": "\(failed)"]
            )
        }
        connection.closeFuture.whenComplete { [self] closed in
            guard state.withLock({ $0.closed(key) }) else { return }
            if case .failure(let error) = closed {
                noteGuarding(why: "a connection it leased closed: \(String(reflecting: error))")
            } else {
                noteGuarding(why: "a connection it leased closed")
            }
        }
    }

    /// Logs that the gate began guarding the pool, and why (a request the pool failed, or
    /// a connection that closed): the requests it turns away meanwhile answer `503`. At
    /// `debug`: a service that stops closes its connections too, and guards then.
    private func noteGuarding(why: String) {
        logger.debug(
            "the \(database)'s pool is guarded until it has its connections again",
            metadata: ["database": "\(database)", "why": "\(why)"]
        )
    }
}
