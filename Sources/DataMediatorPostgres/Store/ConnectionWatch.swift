import NIOCore
import PostgresNIO
import Synchronization

/// Ends the waits on a PostgreSQL connection that closed, which PostgresNIO may leave
/// waiting forever.
///
/// PostgresNIO 1.33.2 fails the statements in flight when a connection closes, but a
/// statement written to a connection that closed just before (between two statements of a
/// transaction, when the server shuts down) is written with no promise: the write fails,
/// and the statement's answer never comes. The request waiting on it would never be
/// answered and would hold its share of the server for good. So every wait on a leased
/// connection is registered here, and when the connection closes, the waits still open
/// after a moment (the statements in flight have failed by then on their own) end with
/// ``Closed``.
final class ConnectionWatch: Sendable {
    /// The error a wait ends with when its connection closed under it.
    struct Closed: Error {}

    /// How long after a connection closed its waits may still end by themselves.
    static let grace: TimeAmount = .milliseconds(500)

    private struct Waits {
        var next = 0
        var ending: [ObjectIdentifier: [Int: @Sendable () -> Void]] = [:]
    }

    private let waits = Mutex(Waits())

    /// Starts `body` on a connection leased through `gate`, in a task of its own, watched:
    /// the wait for it, and the task (cancelled, it gives up its lease request).
    func lease<Value: Sendable>(
        from gate: PoolGate,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Value
    ) -> (wait: Wait<Value>, work: Task<Void, Never>) {
        let wait = Wait<Value>(watch: self)
        let work = Task {
            do {
                wait.finish(
                    .success(
                        try await gate.withConnection { connection in
                            wait.watch(connection)
                            return try await body(connection)
                        }
                    )
                )
            } catch {
                wait.finish(.failure(error))
            }
        }
        return (wait, work)
    }

    /// Runs `statement` on `connection` in a task of its own and waits for it, or until the
    /// connection closes (``Closed``, a moment after): a transaction that is not leased
    /// through ``lease(from:_:)`` (an import's, whose work is not `Sendable`) has each of its
    /// statements watched instead. A check of the connection before a statement is not
    /// enough: it can close between the check and the write (review 109 #1).
    func statement<Value: Sendable>(
        on connection: some WatchedConnection,
        _ statement: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        let wait = Wait<Value>(watch: self)
        wait.watch(connection)
        let work = Task {
            do {
                wait.finish(.success(try await statement()))
            } catch {
                wait.finish(.failure(error))
            }
        }
        return try await withTaskCancellationHandler {
            try await wait.value
        } onCancel: {
            work.cancel()
        }
    }

    /// A wait for work that leases a connection: the work calls ``Wait/watch(_:)`` with the
    /// connection it leased and ``Wait/finish(_:)`` when it ends; the waiter awaits
    /// ``Wait/value``, which ends with ``Closed`` when the connection closes and the work
    /// has not finished a moment later (the work is then abandoned).
    final class Wait<Value: Sendable>: Sendable {
        private let watch: ConnectionWatch
        private let once = Once<Value>()

        fileprivate init(watch: ConnectionWatch) {
            self.watch = watch
        }

        /// Ends the wait with `Closed` if `connection` closes before the work finishes.
        func watch(_ connection: some WatchedConnection) {
            let token = watch.add(connection) { [once] in once.resume(with: .failure(Closed())) }
            once.onResume { [watch] in watch.remove(token, of: connection) }
        }

        /// Ends the wait with the work's result.
        func finish(_ result: Result<Value, any Error>) {
            once.resume(with: result)
        }

        /// Ends the wait without the work's result (`CancellationError`): a read whose time
        /// ran out on a server that does not answer (stopped, or cut off without the
        /// connection closing) is not waited for; its work ends when the server answers.
        func abandon() {
            once.resume(with: .failure(CancellationError()))
        }

        /// The work's result, or ``Closed``.
        var value: Value {
            get async throws {
                try await withCheckedThrowingContinuation { continuation in once.set(continuation) }
            }
        }
    }

    /// Registers `end` to run when `connection` closes; answers its token.
    ///
    /// Waits are keyed by the connection object's identity, so the connection is kept alive
    /// until its waits have ended: freed during the grace, its address could be a new
    /// connection's (the pool opens one at once after a close), whose waits would then be
    /// ended as its own, and a write on that healthy connection answered `503` although it
    /// committed.
    func add(_ connection: some WatchedConnection, _ end: @escaping @Sendable () -> Void) -> Int {
        let key = ObjectIdentifier(connection)
        let (token, first) = waits.withLock { waits in
            waits.next += 1
            let first = waits.ending[key] == nil
            waits.ending[key, default: [:]][waits.next] = end
            return (waits.next, first)
        }
        if first {
            // One callback per connection, not per wait: a connection's future keeps
            // every callback until it closes.
            connection.closeFuture.whenComplete { _ in
                connection.eventLoop.scheduleTask(in: Self.grace) {
                    let ends = self.waits.withLock { $0.ending.removeValue(forKey: key) } ?? [:]
                    for end in ends.values { end() }
                    // Alive until here: its key is no other connection's while it has waits.
                    withExtendedLifetime(connection) {}
                }
            }
        }
        return token
    }

    func remove(_ token: Int, of connection: some WatchedConnection) {
        let key = ObjectIdentifier(connection)
        waits.withLock { waits in
            waits.ending[key]?[token] = nil
        }
    }
}

/// What ``ConnectionWatch`` watches of a connection: when it closes, and its event loop.
protocol WatchedConnection: AnyObject, Sendable {
    /// Completed when the connection has closed.
    var closeFuture: EventLoopFuture<Void> { get }
    /// The event loop the connection runs on.
    var eventLoop: any EventLoop { get }
}

extension PostgresConnection: WatchedConnection {}

/// A continuation resumed at most once, by whichever of its resumers comes first.
private final class Once<Value: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Value, any Error>?
        var early: Result<Value, any Error>?
        var resumed = false
        var cleanup: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())

    func set(_ continuation: CheckedContinuation<Value, any Error>) {
        let early = state.withLock { state -> Result<Value, any Error>? in
            guard let early = state.early else {
                state.continuation = continuation
                return nil
            }
            return early
        }
        if let early { continuation.resume(with: early) }
    }

    func onResume(_ cleanup: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            guard state.resumed else {
                let earlier = state.cleanup
                state.cleanup = {
                    earlier?()
                    cleanup()
                }
                return false
            }
            return true
        }
        if now { cleanup() }
    }

    func resume(with result: Result<Value, any Error>) {
        let (continuation, cleanup) = state.withLock {
            state -> (CheckedContinuation<Value, any Error>?, (@Sendable () -> Void)?) in
            guard !state.resumed else { return (nil, nil) }
            state.resumed = true
            let cleanup = state.cleanup
            state.cleanup = nil
            guard let continuation = state.continuation else {
                // Resumed before anyone waits: the waiter takes the result when it comes.
                state.early = result
                return (nil, cleanup)
            }
            state.continuation = nil
            return (continuation, cleanup)
        }
        continuation?.resume(with: result)
        cleanup?()
    }
}
