import DataMediator
import DataMediatorSQL
import Foundation
import Logging
import PostgresNIO
import Synchronization

extension PostgresStore {
    /// Runs `body` in a read-only `REPEATABLE READ` transaction on the reader: everything
    /// it reads comes from one snapshot.
    func read<Result: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await transaction(
            on: readerGate,
            "START TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY",
            writes: false,
            body
        )
    }

    /// Runs `body`'s statements on the reader, outside a transaction: each statement reads
    /// from a snapshot of its own (one statement agrees with itself), which saves the
    /// round trips of a transaction.
    func readStatement<Result: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await boundedStatement(body)
    }

    /// Runs `body` in a transaction (none when `start` is nil). A database that cannot be
    /// reached or went away, no connection within ``timeout``, a read not answered within
    /// it, or a statement the server stopped at its `statement_timeout` or `lock_timeout`
    /// make it throw `unavailable` (nothing was stored; the client retries). A write that
    /// has its connection is awaited until its commit answers, so it is never answered
    /// `unavailable` once it may have committed; a commit that is not confirmed throws
    /// `outcomeUnknown`.
    func transaction<Result: Sendable>(
        on gate: PoolGate,
        _ start: PostgresQuery?,
        writes: Bool,
        mark: VersionLockMark? = nil,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        let logger = logger
        // A read has what is left of its request's time (``ReadTime``); a write, its own.
        let bound = writes ? timeout : ReadTime.left(of: timeout)
        guard bound > .zero else { throw spentRequestTime(on: gate) }
        let lease = Lease()
        let watch = connectionWatch
        do {
            let result = try await withThrowingTaskGroup(of: Result?.self) { group in
                group.addTask {
                    // The transaction runs in a task of its own, so that the wait for it ends
                    // when its connection closes even if PostgresNIO never answers
                    // (``ConnectionWatch``).
                    let (wait, work) = watch.lease(from: gate) { connection in
                        lease.taken.store(true, ordering: .relaxed)
                        guard let start else { return try await body(connection) }
                        return try await Self.run(
                            body,
                            on: connection,
                            startingWith: start,
                            writes: writes,
                            logger: logger,
                            lease: lease
                        )
                    }
                    return try await withTaskCancellationHandler {
                        try await wait.value
                    } onCancel: {
                        work.cancel()
                        // A read is not waited for past its time (a write's commit must be known).
                        if !writes { wait.abandon() }
                    }
                }
                group.addTask { [eventLoops] in
                    // A timer on an event loop rather than `Task.sleep`: cancelled, it is
                    // gone at once, where a cancelled sleep holds its memory until it
                    // would have ended (a timeout's worth of requests).
                    let timer = eventLoops.any().scheduleTask(in: .nanoseconds(bound.nanoseconds)) {}
                    try await withTaskCancellationHandler {
                        try await timer.futureResult.get()
                    } onCancel: {
                        timer.cancel()
                    }
                    return nil
                }
                defer { group.cancelAll() }
                while let next = try await group.next() {
                    if let result = next { return result }
                    // The timer ended. A write that has its connection goes on: its
                    // statements are bounded by the server, and its commit must be known.
                    guard writes, lease.taken.load(ordering: .relaxed) else { break }
                }
                let leased = lease.taken.load(ordering: .relaxed)
                self.logUnavailable(NoAnswer(bound: bound, leased: leased), leased: leased, on: gate)
                throw DataMediatorError(
                    .unavailable,
                    leased ? "\(gate.named) did not answer in time; retry shortly." : gate.noConnectionInTime
                )
            }
            if writes, start != nil { writesRefused.store(false, ordering: .relaxed) }
            return result
        } catch is ConnectionWatch.Closed {
            // The connection closed under the transaction and PostgresNIO never answered.
            if writes, lease.committing.load(ordering: .relaxed) { throw Self.commitNotConfirmed(logger: logger) }
            throw DataMediatorError(.unavailable, "\(gate.connectionNamed) closed; retry shortly.")
        } catch {
            if writes, let refusal = Self.refusedValue(error) { throw refusal }
            if Self.isReadOnlyRefusal(error) { writesRefused.store(true, ordering: .relaxed) }
            if writes, !lease.committing.load(ordering: .relaxed),
                let ended = Self.endedWrite(error, versionLocked: mark?.isSet ?? false)
            {
                throw ended
            }
            throw answer(to: error, leased: lease.taken.load(ordering: .relaxed), on: gate)
        }
    }

    /// A write the server refused for the values it was given, as the item's refusal
    /// (`invalidItem`), nil for any other error: a value its column cannot hold (SQLSTATE
    /// class 22: a `smallint` or `integer` out of range, text longer than a `varchar(n)`),
    /// values too long together for an index entry (54000: PostgreSQL keeps at most about
    /// 2,700 bytes in one; the service's own columns take text of 1,024 bytes, and a view's
    /// index may hold three of them), and a constraint of the table (class 23,
    /// ``ConstraintRefusal``: `conflict` for a unique one). The transaction was rolled back.
    static func refusedValue(_ error: any Error) -> DataMediatorError? {
        guard let error = error as? PSQLError, error.code == .server,
            let state = error.serverInfo?[.sqlState], state.hasPrefix("22") || state.hasPrefix("23") || state == "54000"
        else { return nil }
        // The column, when the server names it (a NOT NULL violation does).
        let column = error.serverInfo?[.columnName]
        if state.hasPrefix("23") {
            // The service's own tables are written so that none refuses (ON CONFLICT):
            // a refusal there is a fault, not the item's.
            if let table = error.serverInfo?[.tableName], ServiceTables.holds(table) { return nil }
            // A constraint of the table (class 23): 23505 a unique one. The message names
            // the constraint; the detail, which holds the value, is left out.
            let message = error.serverInfo?[.message] ?? "a constraint"
            return state == "23505"
                ? ConstraintRefusal.unique(message) : ConstraintRefusal.other(message, field: column)
        }
        if state == "54000" {
            return ConstraintRefusal.tooLongForAnIndex(
                limit: "PostgreSQL keeps at most about 2,700 bytes in one entry",
                field: column
            )
        }
        let message = error.serverInfo?[.message] ?? "out of range"
        return ConstraintRefusal.value(message, field: column)
    }

    /// Runs `body` in a transaction on the primary with no deadline, for bulk work such as
    /// an import (which reads its records as it goes); committed when `body` returns,
    /// rolled back when it throws.
    ///
    /// The transaction is idle while the import reads and checks records (a record of
    /// tens of megabytes takes seconds, a paused process longer): the session's bound on
    /// that (four times the store's timeout) is lifted too, or the server ended the
    /// import's session under it (review 106 #2). Its work is not `Sendable`, so it is not
    /// leased through ``ConnectionWatch`` as a whole: each statement is watched (`body`
    /// is given the watch for its own), so that a connection closed under it ends the
    /// wait, `unavailable`, or `outcomeUnknown` once its `COMMIT` was sent.
    func bulkWrite<Result: Sendable>(
        _ body: (PostgresConnection, ConnectionWatch) async throws -> Result
    ) async throws -> Result {
        let watch = connectionWatch
        do {
            return try await primaryGate.withConnection { connection in
                try await Self.run(
                    { connection in
                        try await watch.statement(on: connection) { [logger] in
                            try await Self.liftStatementBounds(connection, logger: logger)
                            try await connection.query(
                                "SET LOCAL idle_in_transaction_session_timeout = 0",
                                logger: logger
                            )
                        }
                        return try await body(connection, watch)
                    },
                    on: connection,
                    startingWith: "START TRANSACTION",
                    writes: true,
                    logger: logger,
                    watch: watch
                )
            }
        } catch is ConnectionWatch.Closed {
            throw Self.closed
        }
    }

    /// Lifts the session's statement and lock bounds for the rest of the transaction: for
    /// an import's batches, and for schema changes (an index over millions of rows, the
    /// wait for another replica's schema lock), which are a command's or start-up's work,
    /// not a request's.
    static func liftStatementBounds(_ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("SET LOCAL statement_timeout = 0", logger: logger)
        try await connection.query("SET LOCAL lock_timeout = 0", logger: logger)
    }

    /// Runs `body` in a transaction begun with `start` on `connection`: committed when it
    /// returns, rolled back when it throws. A commit not confirmed is `outcomeUnknown` for
    /// a transaction that `writes`; a read's is the connection's failure (nothing was
    /// stored either way: a standby that ends a read in a recovery conflict is one).
    private nonisolated(nonsending) static func run<Result: Sendable>(
        _ body: (PostgresConnection) async throws -> Result,
        on connection: PostgresConnection,
        startingWith start: PostgresQuery,
        writes: Bool,
        logger: Logger,
        lease: Lease? = nil,
        watch: ConnectionWatch? = nil
    ) async throws -> Result {
        let result: Result
        do {
            try await query(start, on: connection, watch: watch, logger: logger)
            result = try await body(connection)
        } catch {
            await abandon(connection, after: error, logger: logger, watch: watch)
            throw error
        }
        // Closed before its `COMMIT` was sent: the server rolled the transaction back.
        if connection.isClosed {
            await abandon(connection, after: closed, logger: logger, watch: watch)
            throw closed
        }
        do {
            lease?.committing.store(true, ordering: .relaxed)
            try await query("COMMIT", on: connection, watch: watch, logger: logger)
        } catch let error as PSQLError where error.code == .server {
            // The server answered: the transaction did not commit.
            await abandon(connection, after: error, logger: logger, watch: watch)
            throw error
        } catch {
            guard writes else { throw error }
            // No answer to the commit (the connection failed on the way): it may have
            // committed or not.
            logger.error("a commit was not confirmed", metadata: ["error": "\(String(reflecting: error))"])
            throw commitNotConfirmed(logger: logger)
        }
        return result
    }

    /// Rolls back the transaction on `connection`, or closes the connection when the
    /// rollback fails, so that it never goes back to the pool inside a transaction: a
    /// standby's cancel for a recovery conflict can land on the `ROLLBACK` itself, and the
    /// next call on that connection met "current transaction is aborted" (a probe saw
    /// reads answered 500 so). A connection whose transaction was refused a write for being
    /// read-only (`error`) is closed too: a session keeps the database's
    /// `default_transaction_read_only` of when it began, so only a new one takes writes
    /// once the database does again.
    private nonisolated(nonsending) static func abandon(
        _ connection: PostgresConnection,
        after error: any Error,
        logger: Logger,
        watch: ConnectionWatch? = nil
    ) async {
        // Closed, nothing is left to roll back (and a statement there is never answered).
        if connection.isClosed { return }
        if isReadOnlyRefusal(error) {
            try? await connection.close()
            return
        }
        do {
            try await query("ROLLBACK", on: connection, watch: watch, logger: logger)
        } catch {
            try? await connection.close()
        }
    }

    /// Runs a statement of a transaction's own (its start, `COMMIT`, `ROLLBACK`), watched
    /// for the connection's close when the transaction is watched statement by statement.
    private nonisolated(nonsending) static func query(
        _ query: PostgresQuery,
        on connection: PostgresConnection,
        watch: ConnectionWatch?,
        logger: Logger
    ) async throws {
        guard let watch else {
            try await connection.query(query, logger: logger)
            return
        }
        try await watch.statement(on: connection) {
            _ = try await connection.query(query, logger: logger)
        }
    }

    /// Refuses a statement on a connection that is closed (the server ended its session:
    /// an idle or statement bound, an operator's `pg_terminate_backend`, a failover):
    /// PostgresNIO writes a statement to a closed channel and never answers it, and its
    /// caller waited for ever (review 106 #2: an import hung so, nothing printed).
    ///
    /// - Throws: `unavailable` when the connection is closed.
    static func requireOpen(_ connection: PostgresConnection) throws(DataMediatorError) {
        guard connection.isClosed else { return }
        throw closed
    }

    /// The failure of a transaction whose connection closed under it: nothing of it is
    /// stored.
    static let closed = DataMediatorError(
        .unavailable,
        "The connection to the database was closed (by the server: a time bound, an operator, a failover); "
            + "nothing of this transaction is stored."
    )

    /// The answer to a write whose commit was sent and not confirmed: it may or may not
    /// be stored.
    static func commitNotConfirmed(logger: Logger) -> DataMediatorError {
        DataMediatorError(
            .outcomeUnknown,
            "The database did not confirm the write: it may or may not be stored. Read the item back, "
                + "or retry with the same Idempotency-Key."
        )
    }

    /// Runs `body` in a transaction on the primary that holds the store's schema lock, so
    /// replicas starting together do not create the same table twice.
    ///
    /// When `bounded`, its statements and lock waits keep the session's bounds (``timeout``:
    /// `check --store` beside a serving service gives up rather than wait for ever on a
    /// table another program locked); else they have none (building an index takes long).
    func changeSchema<Result: Sendable>(
        bounded: Bool = false,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await Self.$changingSchema.withValue(true) {
            try await write { connection, _ in
                if !bounded { try await Self.liftStatementBounds(connection, logger: self.logger) }
                try await connection.query("SELECT pg_advisory_xact_lock(\(Self.schemaLock))", logger: self.logger)
                return try await body(connection)
            }
        }
    }

    /// Whether the task is changing the schema (``changeSchema(bounded:_:)``): a
    /// statement refused there is the start-up's to tell, with the server's words, not a
    /// list's table changed under a serving service (``answer(to:leased:on:)``).
    @TaskLocal static var changingSchema = false

    /// The advisory lock of schema changes (any fixed number; "dm" in ASCII).
    private static let schemaLock: Int64 = 0x646D
}

/// Whether a transaction got its connection from the pool, so that an error before it is
/// known to be the pool's (PostgresNIO's pool errors are of a module it does not promise
/// to keep, `_ConnectionPoolModule`, so they are told apart by when they happen instead).
private final class Lease: Sendable {
    let taken = Atomic<Bool>(false)
    /// Whether the transaction's `COMMIT` was sent (from then on its outcome is unknown
    /// until the server answers).
    let committing = Atomic<Bool>(false)
}

/// The transactions of a PostgreSQL store, in which the rules both SQL stores share run:
/// reads in one `REPEATABLE READ` snapshot on the reader, writes on the primary.
struct PostgresTransactions: SQLTransactions {
    let store: PostgresStore

    func read<Result: Sendable>(
        _ body: @escaping @Sendable (any SQLSession) async throws -> Result
    ) async throws -> Result {
        try await store.read { [logger = store.logger, statements = store.preparedStatements] connection in
            try await body(PostgresSession(connection: connection, logger: logger, statements: statements))
        }
    }

    /// Statements on the reader outside a transaction (``PostgresStore/readStatement(_:)``),
    /// prepared as a read transaction's are.
    func readStatements<Result: Sendable>(
        _ body: @escaping @Sendable (any SQLSession) async throws -> Result
    ) async throws -> Result {
        try await store.readStatement { [logger = store.logger, statements = store.preparedStatements] connection in
            try await body(PostgresSession(connection: connection, logger: logger, statements: statements))
        }
    }

    func write<Result: Sendable>(
        _ body: @escaping @Sendable (any SQLSession) async throws -> Result
    ) async throws -> Result {
        try await store.write { [logger = store.logger, statements = store.preparedStatements] connection, mark in
            try await body(
                PostgresSession(connection: connection, logger: logger, statements: statements, versionLock: mark)
            )
        }
    }

    func catchUp(to version: Int64) async throws -> CatchUp {
        try await store.catchUp(to: version)
    }

    func bulkWrite<Result: Sendable>(_ body: (any SQLSession) async throws -> Result) async throws -> Result {
        try await store.bulkWrite { connection, watch in
            try await body(PostgresSession(connection: connection, logger: store.logger, watch: watch))
        }
    }
}
