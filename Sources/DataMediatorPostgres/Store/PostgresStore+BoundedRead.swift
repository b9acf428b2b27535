import DataMediator
import PostgresNIO
import Synchronization

extension PostgresStore {
    /// Runs `body`'s single statement on the reader, outside a transaction (one statement
    /// reads one snapshot), bounded by ``timeout`` at the cost of one task and one timer.
    ///
    /// The work runs in its own task so that the timer can stop its wait for a connection:
    /// the pool gives up a lease request whose task is cancelled, and the read throws
    /// `unavailable`. A statement in flight is not waited for past the bound either: a
    /// server that stops answering without closing the connection (a stopped process, a
    /// network cut off silently) enforces no `statement_timeout`, so the wait is abandoned
    /// (the work gives its connection back when the server answers), and a connection that
    /// closes ends it at once (``ConnectionWatch``). A page is the hot path:
    /// the task group that bounds the other calls costs two tasks a read, a tenth of a
    /// page's CPU (docs/performance.md).
    ///
    /// `limit` bounds it tighter than ``timeout`` (a look for `/ready` or `/metrics`), and
    /// so does what is left of the request's time (``ReadTime``).
    func boundedStatement<Result: Sendable>(
        within limit: Duration? = nil,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        let bound = min(limit ?? timeout, ReadTime.left(of: timeout))
        guard bound > .zero else { throw spentRequestTime(on: readerGate) }
        let lease = ReadLease()
        let (wait, work) = connectionWatch.lease(from: readerGate) { connection in
            lease.taken.store(true, ordering: .relaxed)
            do {
                return try await body(connection)
            } catch let error as PSQLError where error.serverInfo?[.sqlState] == "25P02" {
                // A connection left inside an aborted transaction answers every statement
                // so: it is closed, and the pool opens another.
                try? await connection.close()
                throw error
            }
        }
        let timer = eventLoops.any().scheduleTask(in: .nanoseconds(bound.nanoseconds)) {
            lease.expired.store(true, ordering: .relaxed)
            work.cancel()
            // A read: nothing to wait for once its time is up, whatever the server does.
            wait.abandon()
        }
        defer { timer.cancel() }
        do {
            return try await withTaskCancellationHandler {
                try await wait.value
            } onCancel: {
                work.cancel()
            }
        } catch is ConnectionWatch.Closed {
            throw DataMediatorError(.unavailable, "\(readerGate.connectionNamed) closed; retry shortly.")
        } catch {
            let taken = lease.taken.load(ordering: .relaxed)
            // The time ran out: waiting for a connection, or for a server that did not answer.
            if lease.expired.load(ordering: .relaxed), !taken || error is CancellationError {
                logUnavailable(taken ? NoAnswer(bound: bound, leased: true) : error, leased: taken, on: readerGate)
                throw DataMediatorError(
                    .unavailable,
                    taken ? "\(readerGate.named) did not answer in time; retry shortly." : readerGate.noConnectionInTime
                )
            }
            throw answer(to: error, leased: taken, on: readerGate)
        }
    }
}

/// Whether a bounded read got its connection, and whether its time ran out.
private final class ReadLease: Sendable {
    let taken = Atomic<Bool>(false)
    let expired = Atomic<Bool>(false)
}
