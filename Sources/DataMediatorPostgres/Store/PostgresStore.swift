import DataMediator
import DataMediatorSQL
import Foundation
import Logging
import PostgresNIO
import _ConnectionPoolModule

/// The scale-out store: lists over tables and read-only queries of one PostgreSQL
/// database, shared by every replica of the service.
///
/// Writes go to the primary; reads go to the read replica when one is configured. Every
/// read runs in one `REPEATABLE READ` snapshot, so a page's items and version agree. Every
/// write is one transaction that first locks the store's version row: writes are applied
/// one at a time in version order, whichever replica takes them, so the version orders
/// every write of the store and the change log is complete at each version.
///
/// The clients must be running (``clients``, as services of the service group) before the
/// store is used.
public final class PostgresStore: Sendable {
    /// The one-row table that holds the store's version.
    public static let storeTable = "data_mediator_store"
    /// The table that holds, per source table, the store's version after its last write.
    public static let versionTable = "data_mediator_versions"
    /// The channel every write notifies (with its version) on commit.
    public static let channel = "data_mediator_changes"

    /// The primary: writes, schema, notifications, and reads when there is no replica.
    public let primary: PostgresClient
    /// Where reads go: the read replica, or the primary.
    public let reader: PostgresClient
    /// The clients to run, each once (the primary first).
    public let clients: [PostgresClient]
    /// How long a request waits for the database (a connection, its statements, the
    /// commit) before it is answered `unavailable`.
    public let timeout: Duration
    /// The threads of the connections, which also time requests out.
    private let eventLoops: any EventLoopGroup
    let logger: Logger

    /// Creates the store's clients from connection URLs
    /// (`postgres://user:password@host:port/database`).
    ///
    /// - Parameter eventLoops: the threads of the database connections; the HTTP
    ///   server's own, so that a page's statement and its answer need no thread switch
    ///   between them (by default PostgresNIO's shared group, one thread per core).
    /// - Throws: `StoreError` when a URL is not a PostgreSQL URL.
    public init(
        url: String,
        readURL: String? = nil,
        maximumConnections: Int = 20,
        timeout: Duration = .seconds(5),
        eventLoops: any EventLoopGroup = PostgresClient.defaultEventLoopGroup,
        logger: Logger
    ) throws {
        self.logger = logger
        self.timeout = timeout
        self.eventLoops = eventLoops
        primary = PostgresClient(
            configuration: try Self.configuration(url, maximumConnections: maximumConnections),
            eventLoopGroup: eventLoops,
            backgroundLogger: logger
        )
        if let readURL {
            reader = PostgresClient(
                configuration: try Self.configuration(readURL, maximumConnections: maximumConnections),
                eventLoopGroup: eventLoops,
                backgroundLogger: logger
            )
            clients = [primary, reader]
        } else {
            reader = primary
            clients = [primary]
        }
    }

    /// How long a connection may sit idle in the pool before it is closed.
    static let idleTimeout: Duration = .seconds(10)

    /// The client configuration of a connection URL; TLS is off (connect over a private
    /// network or a local socket).
    static func configuration(_ url: String, maximumConnections: Int) throws -> PostgresClient.Configuration {
        guard let parts = URLComponents(string: url), ["postgres", "postgresql"].contains(parts.scheme ?? ""),
            let host = parts.host, !host.isEmpty
        else {
            throw StoreError(
                list: nil,
                "the database URL is not of the form postgres://user:password@host:port/database"
            )
        }
        let database = parts.path.hasPrefix("/") ? String(parts.path.dropFirst()) : parts.path
        var configuration = PostgresClient.Configuration(
            host: host,
            port: parts.port ?? 5432,
            username: parts.user ?? "postgres",
            password: parts.password,
            database: database.isEmpty ? nil : database,
            tls: .disable
        )
        configuration.options.maximumConnections = maximumConnections
        // The pool arms a timer each time a connection goes back to it (a keep-alive ping
        // after 30 s, a close after 60 s idle), and a cancelled timer holds its memory until
        // it would have fired: at thousands of pages a second that held 300 MiB and more.
        // Without keep-alive, and with idle connections closed after 10 s (so none sits
        // idle long enough for a firewall to drop it unseen), the service stays under
        // 100 MiB under the same load.
        configuration.options.keepAliveBehavior = nil
        configuration.options.connectionIdleTimeout = idleTimeout
        return configuration
    }

    /// Runs `body` while the store's clients run, then stops them: for a command that uses
    /// the store once (an import) rather than a service group.
    public func withClientsRunning<Result: Sendable>(
        _ body: () async throws -> Result
    ) async throws -> Result {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for client in clients { group.addTask { await client.run() } }
            defer { group.cancelAll() }
            return try await body()
        }
    }

    // MARK: - Transactions

    /// Runs `body` in a read-only `REPEATABLE READ` transaction on the reader: everything
    /// it reads comes from one snapshot.
    func read<Result: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await transaction(on: reader, "START TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", body)
    }

    /// Runs `body`'s single statement on the reader, outside a transaction: one statement
    /// reads from one snapshot by itself, and saves the round trips of one.
    func readStatement<Result: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await transaction(on: reader, nil, body)
    }

    /// Runs `body` in a transaction on the primary, committed when it returns and rolled
    /// back when it throws.
    func write<Result: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await transaction(on: primary, "START TRANSACTION", body)
    }

    /// Runs `body` in a transaction (none when `start` is nil); a database that cannot be reached, that went away, or
    /// that does not answer within ``timeout`` makes it throw `unavailable` (the client
    /// retries), and so does a transaction whose commit was not confirmed.
    private func transaction<Result: Sendable>(
        on client: PostgresClient,
        _ start: PostgresQuery?,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        let logger = logger
        do {
            return try await withThrowingTaskGroup(of: Result?.self) { group in
                group.addTask {
                    try await client.withConnection { connection in
                        guard let start else { return try await body(connection) }
                        return try await Self.run(body, on: connection, startingWith: start, logger: logger)
                    }
                }
                group.addTask { [timeout, eventLoops] in
                    // A timer on an event loop rather than `Task.sleep`: cancelled, it is
                    // gone at once, where a cancelled sleep holds its memory until it
                    // would have ended (5 s of requests' worth at thousands a second).
                    let timer = eventLoops.any().scheduleTask(in: .nanoseconds(timeout.nanoseconds)) {}
                    try await withTaskCancellationHandler {
                        try await timer.futureResult.get()
                    } onCancel: {
                        timer.cancel()
                    }
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let result = first else {
                    throw DataMediatorError(
                        .unavailable,
                        "The database did not answer in time; retry shortly."
                    )
                }
                return result
            }
        } catch let error as DataMediatorError {
            throw error
        } catch {
            guard Self.isUnavailable(error) else { throw error }
            logger.warning("the database is unavailable", metadata: ["error": "\(String(reflecting: error))"])
            throw DataMediatorError(.unavailable, "The database cannot be reached right now; retry shortly.")
        }
    }

    /// Whether an error means the database cannot be used now (rather than a statement
    /// being wrong): a connection that failed or closed, a server shutting down or
    /// starting, a pool that could not connect.
    static func isUnavailable(_ error: any Error) -> Bool {
        // The connection pool's own errors: it could not connect, or it shut down.
        if error is ConnectionPoolError { return true }
        guard let error = error as? PSQLError else { return false }
        guard error.code == .server else { return true }
        // SQLSTATE classes 08 (connection exception) and 57 (operator intervention).
        let state = error.serverInfo?[.sqlState] ?? ""
        return state.hasPrefix("08") || state.hasPrefix("57")
    }

    /// Runs `body` in a transaction on the primary with no deadline, for bulk work such as
    /// an import (which reads its records as it goes); committed when `body` returns,
    /// rolled back when it throws.
    func bulkWrite<Result: Sendable>(_ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        try await primary.withConnection { connection in
            try await Self.run(body, on: connection, startingWith: "START TRANSACTION", logger: logger)
        }
    }

    /// Runs `body` in a transaction begun with `start` on `connection`: committed when it
    /// returns, rolled back when it throws.
    private nonisolated(nonsending) static func run<Result: Sendable>(
        _ body: (PostgresConnection) async throws -> Result,
        on connection: PostgresConnection,
        startingWith start: PostgresQuery,
        logger: Logger
    ) async throws -> Result {
        try await connection.query(start, logger: logger)
        do {
            let result = try await body(connection)
            try await connection.query("COMMIT", logger: logger)
            return result
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: logger)
            throw error
        }
    }

    /// Runs `body` in a transaction on the primary that holds the store's schema lock, so
    /// replicas starting together do not create the same table twice.
    func changeSchema<Result: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await write { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.schemaLock))", logger: self.logger)
            return try await body(connection)
        }
    }

    /// The advisory lock of schema changes (any fixed number; "dm" in ASCII).
    private static let schemaLock: Int64 = 0x646D

    // MARK: - Schema

    /// Creates the store's own tables when missing: its version, the per-table versions,
    /// the change log, the history floors and the idempotency keys.
    ///
    /// - Throws: `StoreError` when the database cannot be reached or changed.
    public func prepare() async throws {
        do {
            try await changeSchema { connection in
                for statement in Self.schema {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: self.logger)
                }
            }
        } catch {
            throw StoreError(list: nil, "cannot prepare the PostgreSQL store: \(Self.describe(error))")
        }
    }

    private static let schema = [
        """
        CREATE TABLE IF NOT EXISTS \(storeTable) (
            id boolean PRIMARY KEY DEFAULT TRUE CHECK (id),
            version bigint NOT NULL DEFAULT 0
        )
        """,
        "INSERT INTO \(storeTable) (id, version) VALUES (TRUE, 0) ON CONFLICT DO NOTHING",
        """
        CREATE TABLE IF NOT EXISTS \(versionTable) (
            source text PRIMARY KEY,
            changed_at bigint NOT NULL DEFAULT 0
        )
        """,
        """
        CREATE TABLE IF NOT EXISTS \(PostgresChangeLog.changesTable) (
            list text NOT NULL,
            view text NOT NULL,
            version bigint NOT NULL,
            op text NOT NULL,
            item_id text NOT NULL,
            item text,
            section text,
            section_after text,
            after text,
            PRIMARY KEY (list, view, version)
        )
        """,
        """
        CREATE TABLE IF NOT EXISTS \(PostgresChangeLog.historyTable) (
            list text PRIMARY KEY,
            floor bigint NOT NULL
        )
        """,
        """
        CREATE TABLE IF NOT EXISTS \(PostgresItemWriter.idempotencyTable) (
            list text NOT NULL,
            key text NOT NULL,
            fingerprint text NOT NULL,
            item text NOT NULL,
            version bigint NOT NULL,
            created_at double precision NOT NULL,
            PRIMARY KEY (list, key)
        )
        """,
        """
        CREATE INDEX IF NOT EXISTS data_mediator_idempotency_age
        ON \(PostgresItemWriter.idempotencyTable) (created_at)
        """,
    ]

    // MARK: - Versions

    /// The store's version, which every write raises by one.
    public func version() async throws -> Int64 {
        try await read { connection in try await Self.version(connection, logger: self.logger) }
    }

    /// The store's version in the caller's transaction.
    static func version(_ connection: PostgresConnection, logger: Logger) async throws -> Int64 {
        let rows = try await connection.query("SELECT version FROM \(unescaped: storeTable)", logger: logger)
        for try await version in rows.decode(Int64.self) { return version }
        throw DataMediatorError(.unavailable, "The store has no version row.")
    }

    /// Whether the store answers a query now, for readiness checks.
    public func isReadable() async -> Bool {
        do {
            _ = try await version()
            return true
        } catch {
            return false
        }
    }

    // MARK: - Lists

    /// Checks a list's source against the database (creating a missing table and each
    /// view's index) and returns its provider.
    ///
    /// - Throws: `StoreError` naming the missing table, column or the failing query.
    public func provider(for list: ListDefinition, source: StoreSource) async throws -> PostgresDataProvider {
        let needed = StoreSource.columns(of: list)
        do {
            return try await changeSchema { connection in
                let from: String
                var notNull: Set<String> = []
                switch source.kind {
                case .table(let table):
                    if try await !Self.tableExists(table, connection, logger: self.logger) {
                        try await Self.createTable(table, list: list, source: source, connection, logger: self.logger)
                    }
                    if list.isWritable, let revision = list.revisionField,
                        try await !Self.columnTypes(of: SQL.quote(table), connection, logger: self.logger).keys
                            .contains(revision)
                    {
                        let statement =
                            "ALTER TABLE \(SQL.quote(table)) ADD COLUMN \(SQL.quote(revision)) bigint NOT NULL DEFAULT 1"
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: self.logger)
                    }
                    notNull = try await Self.notNullColumns(of: table, connection, logger: self.logger)
                    from = SQL.quote(table)
                case .query(let query):
                    from = "(\(query)) AS source"
                }
                let types: [String: PostgresDataType]
                do {
                    types = try await Self.columnTypes(of: from, connection, logger: self.logger)
                } catch {
                    throw StoreError(list: list.name, "its query does not run: \(Self.describe(error))")
                }
                let written =
                    list.isWritable ? source.fieldTypes.keys.sorted().filter { !needed.contains($0) } : []
                let missing = (needed + written).filter { types[$0] == nil }
                if !missing.isEmpty {
                    throw StoreError(
                        list: list.name,
                        "its source has no column \(missing.map { "'\($0)'" }.joined(separator: ", ")); "
                            + "the columns are \(types.keys.sorted().map { "'\($0)'" }.joined(separator: ", "))"
                    )
                }
                let unsupported = needed.filter { PostgresColumnKind(types[$0] ?? .null) == nil }
                if !unsupported.isEmpty {
                    throw StoreError(
                        list: list.name,
                        "column \(unsupported.map { "'\($0)'" }.joined(separator: ", ")) has a type the service "
                            + "cannot show; cast it to text, a number or a boolean in a query list"
                    )
                }
                for table in source.allVersionTables {
                    try await connection.query(
                        "INSERT INTO \(unescaped: Self.versionTable) (source) VALUES (\(table)) ON CONFLICT DO NOTHING",
                        logger: self.logger
                    )
                }
                let keyset = KeysetSQL(
                    dialect: .postgres,
                    notNullColumns: notNull,
                    textColumns: Set(types.filter { PostgresColumnKind($0.value) == .text }.keys)
                )
                if case .table(let table) = source.kind {
                    for view in list.views {
                        try await connection.query(
                            PostgresQuery(unsafeSQL: keyset.indexStatement(for: view, on: table)),
                            logger: self.logger
                        )
                    }
                }
                let provider = PostgresDataProvider(
                    store: self,
                    viewsAreIndexed: source.isTable,
                    from: from,
                    columns: needed,
                    idField: list.idField,
                    idIsInteger: PostgresColumnKind(types[list.idField] ?? .null) == .integer,
                    fieldTypes: source.fieldTypes,
                    keyset: keyset,
                    versionTables: source.allVersionTables
                )
                for view in list.views {
                    do {
                        try await provider.check(view, connection)
                    } catch {
                        throw StoreError(
                            list: list.name,
                            "view '\(view.name)' does not fit its columns' types: \(Self.describe(error))"
                        )
                    }
                }
                return provider
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(list: list.name, Self.describe(error))
        }
    }

    /// The writer and change log of a writable table list, or nil for a list that is not
    /// writable.
    ///
    /// - Throws: `StoreError` when the list is writable but its source is a query,
    ///   or it has no revision field.
    public func writer(
        for list: ListDefinition,
        source: StoreSource,
        provider: PostgresDataProvider
    ) async throws -> (writer: PostgresItemWriter, changeLog: PostgresChangeLog)? {
        guard let (table, revision) = try source.writeTarget(of: list) else { return nil }
        let columns = StoreSource.columns(of: list)
        let changeLog = PostgresChangeLog(store: self, list: list, columns: columns)
        do {
            try await write { connection in try await changeLog.start(connection) }
        } catch {
            throw StoreError(list: list.name, "cannot prepare writes: \(Self.describe(error))")
        }
        let writer = PostgresItemWriter(
            store: self,
            list: list,
            table: table,
            revisionField: revision,
            fieldTypes: source.fieldTypes,
            columns: columns,
            idIsInteger: provider.idIsInteger,
            provider: provider,
            changeLog: changeLog
        )
        return (writer, changeLog)
    }

    /// The adapter of a list over this store: its provider, and for a writable list its
    /// writer and change log.
    ///
    /// - Throws: `StoreError` as ``provider(for:source:)`` and ``writer(for:source:provider:)`` do.
    public func adapter(
        for list: ListDefinition,
        source: StoreSource,
        signer: CursorSigner,
        notifier: ChangeNotifier = ChangeNotifier()
    ) async throws -> ListAdapter {
        let provider = try await provider(for: list, source: source)
        let writes = try await writer(for: list, source: source, provider: provider)
        return ListAdapter(
            definition: list,
            provider: provider,
            signer: signer,
            writer: writes?.writer,
            changeLog: writes?.changeLog ?? ReloadLog(lastChange: { try await provider.lastChange() }),
            notifier: notifier
        )
    }

    // MARK: - Catalog

    private static func tableExists(
        _ table: String,
        _ connection: PostgresConnection,
        logger: Logger
    ) async throws
        -> Bool
    {
        let rows = try await connection.query("SELECT to_regclass(\(SQL.quote(table))) IS NOT NULL", logger: logger)
        for try await exists in rows.decode(Bool.self) { return exists }
        return false
    }

    /// The columns of a table or subquery and their types, from a read of no rows.
    private static func columnTypes(
        of from: String,
        _ connection: PostgresConnection,
        logger: Logger
    ) async throws
        -> [String: PostgresDataType]
    {
        let rows = try await connection.query(
            PostgresQuery(unsafeSQL: "SELECT * FROM \(from) LIMIT 0"),
            logger: logger
        )
        var types: [String: PostgresDataType] = [:]
        for column in rows.columns { types[column.name] = column.dataType }
        for try await _ in rows {}
        return types
    }

    private static func notNullColumns(
        of table: String,
        _ connection: PostgresConnection,
        logger: Logger
    ) async throws
        -> Set<String>
    {
        let rows = try await connection.query(
            """
            SELECT attname::text FROM pg_attribute
            WHERE attrelid = to_regclass(\(SQL.quote(table))) AND attnum > 0 AND NOT attisdropped AND attnotnull
            """,
            logger: logger
        )
        var names: Set<String> = []
        for try await name in rows.decode(String.self) { names.insert(name) }
        return names
    }

    private static func createTable(
        _ table: String,
        list: ListDefinition,
        source: StoreSource,
        _ connection: PostgresConnection,
        logger: Logger
    ) async throws {
        var definitions = ["\(SQL.quote(list.idField)) \(sqlType(source.fieldTypes[list.idField])) PRIMARY KEY"]
        var seen: Set<String> = [list.idField]
        for field in StoreSource.columns(of: list) + source.fieldTypes.keys.sorted() where seen.insert(field).inserted {
            if field == list.revisionField {
                definitions.append("\(SQL.quote(field)) bigint NOT NULL DEFAULT 1")
            } else {
                definitions.append("\(SQL.quote(field)) \(sqlType(source.fieldTypes[field]))")
            }
        }
        let statement = "CREATE TABLE \(SQL.quote(table)) (\(definitions.joined(separator: ", ")))"
        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
    }

    /// The column type of a declared field: text in the `"C"` collation, so the database
    /// orders it as the service does.
    private static func sqlType(_ type: FieldType?) -> String {
        switch type {
        case .integer: return "bigint"
        case .boolean: return "boolean"
        case .number: return "double precision"
        case .string, .json, nil: return "text COLLATE \"C\""
        }
    }

    /// A database error as one line: PostgreSQL's own message when there is one.
    static func describe(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] { return message }
            return "\(error.code)"
        }
        return "\(error)"
    }
}
