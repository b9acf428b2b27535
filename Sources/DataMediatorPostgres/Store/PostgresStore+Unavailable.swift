import DataMediator
import DataMediatorSQL
import Logging
import PostgresNIO

/// What a call that failed answers: `unavailable`, saying which server and why, while the
/// database or its read replica cannot be used now.
extension PostgresStore {
    /// Why a call whose time ran out failed, for its log line: the call itself was ended
    /// by the service (a cancellation), which says nothing of the server.
    struct NoAnswer: Error, CustomStringConvertible {
        /// The call's bound.
        let bound: Duration
        /// Whether it had its connection (else it waited for one).
        let leased: Bool

        var description: String {
            leased
                ? "the server did not answer within \(bound)" : "no connection to the server came within \(bound)"
        }
    }

    /// What a read answers that has no time left: its request spent the store's timeout
    /// before it (waiting for a read replica to catch up, say; ``ReadTime``). Not logged:
    /// the waits that spent it say why.
    func spentRequestTime(on gate: PoolGate) -> DataMediatorError {
        DataMediatorError(.unavailable, "\(gate.named) did not answer in time; retry shortly.")
    }

    /// Logs a call that failed with `error` because the server behind `gate` cannot be used
    /// now (`what` says how, after the server's name: `is unavailable` unless it was
    /// reached and refused the call): a warning once each 10 s per server, with how many
    /// calls failed since, the lines between at `debug`.
    func logUnavailable(_ error: any Error, leased: Bool, on gate: PoolGate, what: String = "is unavailable") {
        let replica = readerConfiguration != nil && gate === readerGate
        var metadata: Logger.Metadata = ["database": "\(gate.database)", "error": "\(String(reflecting: error))"]
        // A call that got no connection failed for what the pool's attempts met (a refused
        // connection, say), which its own error (a request the pool cancelled) does not say.
        if !leased, let connecting = gate.attempts.lastError { metadata["last_connect_error"] = "\(connecting)" }
        if let count = (replica ? replicaFailures : primaryFailures).count() {
            metadata["failed_calls"] = "\(count)"
            logger.warning("the \(gate.database) \(what)", metadata: metadata)
        } else {
            logger.debug("the \(gate.database) \(what)", metadata: metadata)
        }
    }

    /// What a call answers that failed with `error`, `leased` telling whether it had its
    /// connection: `unavailable` when the database cannot be used now (or the pool failed
    /// before a lease: it could not connect, or it shut down, or the read replica lacks a
    /// table or column it has not replayed yet), the error itself otherwise.
    ///
    /// `gate` names the server in the log (the primary, or the read replica); while a server
    /// stays unavailable, one line each 10 s tells how many calls failed since.
    func answer(to error: any Error, leased: Bool, on gate: PoolGate? = nil) -> any Error {
        if error is DataMediatorError { return error }
        // A call whose task was cancelled (its client went away, or the service stops or
        // refused to start) says nothing of the server.
        if error is CancellationError, Task.isCancelled { return error }
        let gate = gate ?? primaryGate
        let replica = readerConfiguration != nil && gate === readerGate
        // A read replica without a table or column the list reads has not replayed it yet
        // (a service started with the primary's tables new, say).
        if replica, Self.isRefusedStatement(error) {
            logUnavailable(error, leased: leased, on: gate, what: Self.refusedStatementLog)
            return DataMediatorError(
                .unavailable,
                "The database's read replica does not hold a table or column the list reads yet; retry shortly."
            )
        }
        // On the primary: the table or a column changed since start-up checked the list
        // (another program dropped, renamed or retyped it, or revoked a right). The log
        // keeps the server's message; `GET /ready` says which list and what.
        if Self.isRefusedStatement(error), !Self.changingSchema {
            logUnavailable(error, leased: leased, on: gate, what: Self.refusedStatementLog)
            return SourceCheck.refused
        }
        if Self.isReadOnlyRefusal(error) {
            logUnavailable(error, leased: leased, on: gate, what: "refused a write: it is read-only")
            return DataMediatorError(.unavailable, Self.readOnlyDetail(gate.named) + " retry later.")
        }
        guard Self.isUnavailable(error) || !leased else { return error }
        logUnavailable(error, leased: leased, on: gate)
        // 57014 and 55P03: a statement or a lock wait (for the store's version lock, held by
        // an import, say) ran past the timeout; the database itself was reached.
        let state = (error as? PSQLError)?.serverInfo?[.sqlState]
        // Class 40: PostgreSQL ended the transaction to end a deadlock (40P01), with another
        // program's transaction that held a row the write needed and wanted a lock it held.
        if state?.hasPrefix("40") == true {
            // On a read replica: a read its replay of the primary's changes cancelled (a
            // conflict with recovery, 40001).
            if replica {
                return DataMediatorError(
                    .unavailable,
                    "The database's read replica ended the read to replay its primary's changes; retry."
                )
            }
            return DataMediatorError(
                .unavailable,
                "The write met another transaction on the same rows and was ended (nothing is stored); retry."
            )
        }
        if let error = error as? PSQLError, Self.isStalePlan(error) {
            return DataMediatorError(
                .unavailable,
                "A column of the list's table changed type under a prepared read, which is prepared anew; retry."
            )
        }
        // 57014 is also a statement an operator cancelled (`pg_cancel_backend`): the server's
        // words, which say which, may be in another language.
        if state == "57014" || state == "55P03" {
            return DataMediatorError(
                .unavailable,
                "\(gate.named) stopped the statement before it finished (at its time limit: busy, say another "
                    + "writer such as an import holds the store, or it was slow to answer; or cancelled by an "
                    + "operator); retry shortly."
            )
        }
        // 25P03 (and PostgreSQL 17's 25P04): the server ended a session left inside its
        // transaction past the bound (4 timeouts), as after the server itself stood still;
        // the transaction was rolled back.
        if state == "25P03" || state == "25P04" {
            return DataMediatorError(
                .unavailable,
                "\(gate.named) ended the transaction, which waited past its bound (nothing of it is stored); "
                    + "retry shortly."
            )
        }
        return DataMediatorError(.unavailable, "\(gate.named) cannot be reached right now; retry shortly.")
    }

    /// Whether an error means the database cannot be used now (rather than a statement
    /// being wrong): a connection that failed or closed, a server shutting down or
    /// starting, a pool that shut down.
    static func isUnavailable(_ error: any Error) -> Bool {
        guard let error = error as? PSQLError else { return false }
        guard error.code == .server else { return true }
        // SQLSTATE classes 08 (connection exception), 40 (transaction rollback: a deadlock,
        // a serialization failure) and 57 (operator intervention, which holds 57014, a
        // statement stopped at its statement_timeout), and 55P03, a lock not granted within
        // lock_timeout: the transaction was rolled back, a retry may pass; 25P02, a
        // connection left inside an aborted transaction, which is closed when met; and
        // 25P03 and 25P04, a session the server ended for a transaction past its bounds.
        let state = error.serverInfo?[.sqlState] ?? ""
        return state.hasPrefix("08") || state.hasPrefix("40") || state.hasPrefix("57") || state == "55P03"
            || state == "25P02" || state == "25P03" || state == "25P04" || isStalePlan(error)
    }

    /// What the log says of a server that refused a statement for what its SQL names
    /// (``isRefusedStatement(_:)``): reached, not unavailable.
    static let refusedStatementLog = "refused a statement: a table, column or right it names is not there"

    /// Whether the server refused a statement for what its SQL names (SQLSTATE class 42: a
    /// table, column or function that is not there, a type that does not match, a right
    /// not granted), which may pass once the database changes.
    static func isRefusedStatement(_ error: any Error) -> Bool {
        guard let error = error as? PSQLError, error.code == .server else { return false }
        return error.serverInfo?[.sqlState]?.hasPrefix("42") == true
    }

    /// Whether a prepared statement's rows changed type under it (another program altered a
    /// column it reads, `ALTER TABLE ... TYPE`): PostgreSQL refuses the statement on every
    /// connection that prepared it (0A000), so it is prepared anew under another name
    /// (``PreparedStatements/forget(_:binding:)``) and this request is asked again.
    static func isStalePlan(_ error: PSQLError) -> Bool {
        error.serverInfo?[.sqlState] == "0A000"
            && error.serverInfo?[.message]?.contains("cached plan must not change result type") == true
    }
}
