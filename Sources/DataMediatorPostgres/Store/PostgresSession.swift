import DataMediator
import DataMediatorSQL
import Foundation
import Logging
import PostgresNIO
import Synchronization

/// A PostgreSQL connection inside a transaction, as the shared rules use it.
struct PostgresSession: SQLSession {
    let connection: PostgresConnection
    let logger: Logger
    /// Where the statements of reads and writes are prepared; none in schema changes and
    /// imports (whose statements run once, or change what a prepared plan was made for).
    var statements = PreparedStatements.none
    /// Set once a write's transaction holds the version lock.
    var versionLock: PostgresStore.VersionLockMark?
    /// Where each statement is watched for its connection's close, in a transaction not
    /// watched as a whole (an import's, ``PostgresStore/bulkWrite(_:)``); nil in the others.
    var watch: ConnectionWatch?

    var dialect: SQLDialect { .postgres }

    func tookVersionLock() {
        versionLock?.set()
    }

    var underLockWait: String {
        versionLock?.underLockWait ?? StoreVersion.underLockWait
    }

    var rowLockFirst: Bool {
        versionLock?.rowFirst ?? true
    }

    func rows(_ sql: String, _ arguments: [JSONValue]) async throws -> [[JSONValue]] {
        try PostgresStore.requireOpen(connection)
        guard let watch else { return try await Self.rows(sql, arguments, on: connection, statements, logger) }
        return try await watch.statement(on: connection) { [connection, statements, logger] in
            try await Self.rows(sql, arguments, on: connection, statements, logger)
        }
    }

    /// Prepared as ``rows(_:_:)`` prepares (a write's deletes and idempotency records
    /// repeat as its reads do).
    func execute(_ sql: String, _ arguments: [JSONValue]) async throws {
        try PostgresStore.requireOpen(connection)
        guard let watch else { return try await Self.execute(sql, arguments, on: connection, statements, logger) }
        try await watch.statement(on: connection) { [connection, statements, logger] in
            try await Self.execute(sql, arguments, on: connection, statements, logger)
        }
    }

    private static func rows(
        _ sql: String,
        _ arguments: [JSONValue],
        on connection: PostgresConnection,
        _ statements: PreparedStatements,
        _ logger: Logger
    ) async throws -> [[JSONValue]] {
        var answer: [[JSONValue]] = []
        let rows = try await connection.rows(of: sql, binding: arguments, preparedIn: statements, logger: logger)
        for try await row in rows {
            answer.append(try row.map { try JSONValue($0) })
        }
        return answer
    }

    private static func execute(
        _ sql: String,
        _ arguments: [JSONValue],
        on connection: PostgresConnection,
        _ statements: PreparedStatements,
        _ logger: Logger
    ) async throws {
        let rows = try await connection.rows(of: sql, binding: arguments, preparedIn: statements, logger: logger)
        for try await _ in rows {}
    }

    func refusal(of error: any Error) -> DataMediatorError? {
        PostgresStore.refusedValue(error)
    }

    var errorsEndTheTransaction: Bool { true }
}
