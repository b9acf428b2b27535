import DataMediator
import DataMediatorSQL
import GRDB

/// A SQLite connection inside one of GRDB's accesses, as the shared rules use it.
///
/// `@unchecked Sendable`: GRDB's `Database` is not `Sendable`; a session only lives inside
/// the GRDB closure that made it, and the task that uses it runs on that closure's thread
/// (``CallingThreadExecutor``), so the connection is used on GRDB's thread only.
struct SQLiteSession: SQLSession, @unchecked Sendable {
    let db: Database
    /// The texts the store's connections keep compiled.
    let texts: SQLiteStatementTexts

    var dialect: SQLDialect { .sqlite }

    func rows(_ sql: String, _ arguments: [JSONValue]) async throws -> [[JSONValue]] {
        let statement = try texts.statement(sql, on: db)
        let count = statement.columnCount
        let steps = try StatementSteps(statement, arguments: StatementArguments(values: arguments.map(\.databaseValue)))
        var rows: [[JSONValue]] = []
        while let row = try steps.next() {
            rows.append((0..<count).map { JSONValue(DatabaseValue(sqliteStatement: row, index: CInt($0))) })
        }
        return rows
    }

    func execute(_ sql: String, _ arguments: [JSONValue]) async throws {
        try texts.statement(sql, on: db).execute(
            arguments: StatementArguments(values: arguments.map(\.databaseValue))
        )
    }

    func refusal(of error: any Error) -> DataMediatorError? {
        Self.constraintRefusal(error)
    }

    /// A constraint of the table that refused a write (``ConstraintRefusal``: `conflict`
    /// for a unique index or the primary key), nil for any other error. GRDB's message names
    /// the constraint or the columns, not the value.
    static func constraintRefusal(_ error: any Error) -> DataMediatorError? {
        guard let error = error as? DatabaseError, error.resultCode == .SQLITE_CONSTRAINT else { return nil }
        let detail = error.message ?? "a constraint"
        // "UNIQUE constraint failed: table.column, ...": a constraint of the service's own
        // tables is a fault, not the item's (a CHECK's message names no table).
        if let failed = detail.firstRange(of: "failed: "),
            ServiceTables.holds(String(detail[failed.upperBound...].prefix { $0 != "." }))
        {
            return nil
        }
        switch error.extendedResultCode {
        case .SQLITE_CONSTRAINT_UNIQUE, .SQLITE_CONSTRAINT_PRIMARYKEY: return ConstraintRefusal.unique(detail)
        case .SQLITE_CONSTRAINT_NOTNULL:
            // "NOT NULL constraint failed: table.column"
            return ConstraintRefusal.other(detail, field: detail.split(separator: ".").last.map(String.init))
        case .SQLITE_CONSTRAINT_CHECK:
            // "CHECK constraint failed: name", or the check's own SQL when it has no name:
            // the table's definition is not told to clients.
            guard let failed = detail.firstRange(of: "failed: "),
                !detail[failed.upperBound...].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" })
            else { return ConstraintRefusal.other(detail, field: nil) }
            return ConstraintRefusal.other("CHECK constraint failed: a check of the table without a name", field: nil)
        default: return ConstraintRefusal.other(detail, field: nil)
        }
    }

    var errorsEndTheTransaction: Bool { false }

    /// `body`'s answer over a session of `db`, computed on the calling thread (GRDB's).
    /// A statement SQLite refuses for a table or column gone since start-up (another
    /// program altered the file) is `unavailable`, as ``SourceCheck/refused`` says.
    static func run<Result>(
        _ body: (any SQLSession) async throws -> Result,
        on db: Database,
        texts: SQLiteStatementTexts
    ) throws -> Result {
        let session = SQLiteSession(db: db, texts: texts)
        do {
            return try CallingThreadExecutor.run { try await body(session) }
        } catch let error as DatabaseError where error.isRefusedStatement {
            throw SourceCheck.refused
        }
    }
}

/// The transactions of a SQLite store: GRDB's reads (one snapshot) and writes (one
/// transaction on the pool's single writer), each running the shared rules on its thread.
struct SQLiteTransactions: SQLTransactions {
    let database: DatabasePool
    /// The connections pages are read on, which short reads use too.
    let pageReaders: SQLitePageReaders
    /// The store file's path, and the device and inode of the file opened there (nil
    /// when they could not be read).
    let path: String
    let openedFile: [UInt64]?
    /// The statement texts its connections keep compiled.
    let texts: SQLiteStatementTexts

    /// A short read in a transaction of its own on a page reader, on the calling thread
    /// (no thread switch), or through the pool when every page reader is in use.
    func shortRead<Result: Sendable>(
        _ body: @escaping @Sendable (any SQLSession) async throws -> Result
    ) async throws -> Result {
        let answer: Result?? = try pageReaders.read { db in
            var result: Result?
            try db.inTransaction(.deferred) {
                result = try SQLiteSession.run(body, on: db, texts: texts)
                return .commit
            }
            return result
        }
        if let answer, let result = answer { return result }
        return try await read(body)
    }

    /// Reads on a page reader outside a transaction, on the calling thread (each statement
    /// is a snapshot of its own), or through the pool when every page reader is in use.
    func readStatements<Result: Sendable>(
        _ body: @escaping @Sendable (any SQLSession) async throws -> Result
    ) async throws -> Result {
        let answer: Result?? = try pageReaders.read { db -> Result? in
            try SQLiteSession.run(body, on: db, texts: texts)
        }
        if let answer, let result = answer { return result }
        return try await read(body)
    }

    func read<Result: Sendable>(
        _ body: @escaping @Sendable (any SQLSession) async throws -> Result
    ) async throws -> Result {
        try await database.read { db in try SQLiteSession.run(body, on: db, texts: texts) }
    }

    func write<Result: Sendable>(
        _ body: @escaping @Sendable (any SQLSession) async throws -> Result
    ) async throws -> Result {
        // A file moved, deleted or replaced under the service is not the store anymore: a
        // write to the file it holds open would be answered and then lost with it.
        if let openedFile, SQLiteStore.fileIdentity(path) != openedFile {
            throw DataMediatorError(
                .unavailable,
                "The store's file is no longer where the service opened it (moved, deleted or replaced); "
                    + "nothing was written. Writes resume once the file is back, or the service is started again on it."
            )
        }
        do {
            return try await database.write { db in try SQLiteSession.run(body, on: db, texts: texts) }
        } catch let error as DatabaseError where error.isBusy {
            // Another program (an import) held the store's one writer for longer than the
            // busy timeout: nothing of this write was stored, and a retry may pass.
            throw DataMediatorError(
                .unavailable,
                "The store is busy with another writer (an import, another program); retry shortly."
            )
        } catch {
            // GRDB rolled the transaction back.
            throw SQLiteSession.constraintRefusal(error) ?? error
        }
    }

    func bulkWrite<Result: Sendable>(_ body: (any SQLSession) async throws -> Result) async throws -> Result {
        try blockingBulkWrite(body)
    }

    /// ``bulkWrite(_:)`` on the calling thread: GRDB's synchronous write, whose closure
    /// need not be `Sendable` (an import's records are read as it goes). Bulk work is a
    /// command's, not a request's, so blocking its thread costs no one else.
    private func blockingBulkWrite<Result>(_ body: (any SQLSession) async throws -> Result) throws -> Result {
        do {
            return try database.writeWithoutTransaction { db in
                var result: Result?
                try db.inTransaction(.immediate) {
                    result = try SQLiteSession.run(body, on: db, texts: texts)
                    return .commit
                }
                guard let result else { preconditionFailure("a committed transaction without an answer") }
                return result
            }
        } catch let error as DatabaseError where error.isBusy {
            throw StoreError(list: nil, DatabaseError.busyWriterDetail)
        }
    }
}
