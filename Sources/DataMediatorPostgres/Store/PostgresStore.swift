import DataMediator
import DataMediatorSQL
import Foundation
import Logging
import PostgresNIO
import Synchronization

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
    /// The primary: writes, schema, notifications, and reads when there is no replica.
    public let primary: PostgresClient
    /// Where reads go: the read replica, or the primary.
    public let reader: PostgresClient
    /// The way to the primary's pool and to the reader's (one gate when they are one
    /// client), which every lease takes (``PoolGate``).
    let primaryGate: PoolGate
    let readerGate: PoolGate
    /// The writes that may hold a primary connection at once: half the pool's share.
    let writeSlots: WriteSlots
    /// The clients to run, each once (the primary first).
    public let clients: [PostgresClient]
    /// How long a request waits for a connection, and a read for its answer, before it is
    /// answered `unavailable`; and the server's `statement_timeout` and `lock_timeout`, so
    /// a statement that runs longer is stopped by PostgreSQL itself. A write, once it has a
    /// connection, is awaited to its commit (or until its connection closes).
    public let timeout: Duration
    /// The threads of the connections, which also time requests out.
    let eventLoops: any EventLoopGroup
    /// Ends the waits on connections that closed under them.
    let connectionWatch = ConnectionWatch()
    let logger: Logger
    /// The writable lists over each of the store's tables.
    public let tableWriters = TableWriters()
    /// The indexes made for the lists over each of the store's tables.
    public let indexes = TableIndexes()
    /// The ports of the database servers it connects to, whose connections
    /// ``DatabaseKeepAlive`` keeps alive.
    public let ports: Set<Int>
    /// The names of the reads each connection prepares once.
    let preparedStatements: PreparedStatements
    /// How the primary is reached, for saying why it cannot be (``connectionFailure()``).
    let primaryConfiguration: PostgresClient.Configuration
    /// How connections to the primary use TLS, for the same.
    let primaryTLS: DatabaseTLS
    /// How connections to the read replica use TLS, when reads go to one.
    let readerTLS: DatabaseTLS?
    /// Whether ``prepare()`` has succeeded, which lets the pools' own lines below `warning`
    /// into the log (``PoolLogHandler``).
    let started = PoolLogHandler.Started()
    /// How the read replica is reached, when reads go to one.
    let readerConfiguration: PostgresClient.Configuration?
    /// The name the refusal of a pool larger than the server allows gives the pool's size
    /// setting (``connectionLimitProblem(_:_:)``).
    let poolSizeSetting: String
    /// The read replica's version, read once for every caller that waits for it in the
    /// same moment (``catchUp(to:)``).
    let replayedVersion = SharedVersionRead(age: PostgresStore.catchUpPoll)
    /// When the primary was first seen at the versions the read replica may not hold yet
    /// (``replicaLag()``).
    let primarySightings = PrimarySightings()
    /// The primary's version at the first readiness look, which the read replica must
    /// hold before the service is ready (``readinessProblem(checking:)``).
    let startVersion = StartVersion()
    /// The calls that found the primary, or the read replica, unavailable since the last
    /// log line that told of them.
    let primaryFailures = LogThrottle()
    let replicaFailures = LogThrottle()
    /// How many write runs met a held row under the version lock and ran again (a test's
    /// way to see the lock order at work, ``write(_:)``).
    let blockedRuns = Atomic<Int>(0)
    /// Whether a write met the primary read-only since a write last committed or a
    /// readiness look found it taking writes again (``readOnlyProblem()``).
    let writesRefused = Atomic<Bool>(false)

    /// Creates the store's clients from connection URLs
    /// (`postgres://user:password@host:port/database`).
    ///
    /// - Parameter eventLoops: the threads of the database connections; the HTTP
    ///   server's own, so that a page's statement and its answer need no thread switch
    ///   between them (by default PostgresNIO's shared group, one thread per core).
    /// - Parameter keepConnectionsOpen: whether the pool opens all its connections at
    ///   start and keeps them open (so it arms no idle timer per page); off only where many
    ///   stores share one server's connections, as the tests do.
    /// - Parameter prepareStatements: whether each connection prepares the statements of reads
    ///   and writes once and reuses them (off for a pooler that cannot keep a prepared statement
    ///   between transactions, such as PgBouncer in transaction mode before 1.21).
    /// - Parameter heldConnections: connections of the primary's pool held for the life of
    ///   the store (the change listener's `LISTEN`), over `maximumConnections`: else they
    ///   are taken from the requests' share, and a pool of one never serves one.
    /// - Parameter poolSizeSetting: how the setting that gives `maximumConnections` is
    ///   named where the store is configured (the service's environment variable), for the
    ///   refusal to start with a pool larger than the server allows.
    /// - Throws: `StoreError` when a URL is not a PostgreSQL URL.
    public init(
        url: String,
        readURL: String? = nil,
        maximumConnections: Int = 8,
        timeout: Duration = .seconds(5),
        eventLoops: any EventLoopGroup = PostgresClient.defaultEventLoopGroup,
        keepConnectionsOpen: Bool = true,
        prepareStatements: Bool = true,
        poolSizeSetting: String = "maximumConnections",
        heldConnections: Int = 0,
        logger: Logger
    ) throws {
        self.logger = logger
        self.poolSizeSetting = poolSizeSetting
        preparedStatements = PreparedStatements(enabled: prepareStatements)
        writeSlots = WriteSlots(maximumConnections / 2)
        self.timeout = timeout
        self.eventLoops = eventLoops
        ports = Set(([url] + (readURL.map { [$0] } ?? [])).map { URLComponents(string: $0)?.port ?? 5432 })
        primaryTLS = try Self.tls(ofURL: url)
        primaryConfiguration = try Self.configuration(
            url,
            tls: primaryTLS,
            maximumConnections: maximumConnections + heldConnections,
            timeout: timeout,
            keepConnectionsOpen: keepConnectionsOpen
        )
        let primaryAttempts = PoolLogHandler.ConnectAttempts()
        let primaryName = readURL == nil ? "database" : "primary"
        primary = PostgresClient(
            configuration: primaryConfiguration,
            eventLoopGroup: eventLoops,
            backgroundLogger: PoolLogHandler.logger(
                like: logger,
                started: started,
                database: primaryName,
                attempts: primaryAttempts
            )
        )
        let primaryConnections = keepConnectionsOpen ? maximumConnections + heldConnections : 0
        primaryGate = PoolGate(
            primary,
            connections: primaryConnections,
            database: primaryName,
            attempts: primaryAttempts,
            size: heldConnections == 0
                ? poolSizeSetting : "\(poolSizeSetting), and \(heldConnections) held for the change listener",
            logger: logger
        )
        if let readURL {
            let readerTLS = try Self.tls(ofURL: readURL)
            let readerConfiguration = try Self.configuration(
                readURL,
                tls: readerTLS,
                maximumConnections: maximumConnections,
                timeout: timeout,
                keepConnectionsOpen: keepConnectionsOpen
            )
            self.readerConfiguration = readerConfiguration
            self.readerTLS = readerTLS
            let readerAttempts = PoolLogHandler.ConnectAttempts()
            reader = PostgresClient(
                configuration: readerConfiguration,
                eventLoopGroup: eventLoops,
                backgroundLogger: PoolLogHandler.logger(
                    like: logger,
                    started: started,
                    database: "read replica",
                    attempts: readerAttempts
                )
            )
            clients = [primary, reader]
            readerGate = PoolGate(
                reader,
                connections: keepConnectionsOpen ? maximumConnections : 0,
                database: "read replica",
                attempts: readerAttempts,
                size: poolSizeSetting,
                logger: logger
            )
        } else {
            readerConfiguration = nil
            readerTLS = nil
            reader = primary
            clients = [primary]
            readerGate = primaryGate
        }
    }

    /// The store's transactions, in which the rules both SQL stores share run.
    public var transactions: any SQLTransactions { PostgresTransactions(store: self) }

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

    // MARK: - Schema

    /// Creates the store's own tables when missing: its version, the per-table versions,
    /// the change log, the history floors and the idempotency keys.
    ///
    /// - Throws: `StoreError` when the database cannot be reached or changed, or the
    ///   primary or the read replica lets the store's user open fewer connections than its
    ///   pool opens.
    public func prepare() async throws {
        var limitProblem: String?
        if let failure = await lastingConnectionFailure() { throw StoreError(list: nil, failure) }
        do {
            // A read URL on the primary's server: both pools count against its limits.
            let alongside = readerConfiguration.flatMap { Self.sameServer($0, primaryConfiguration) ? $0 : nil }
            limitProblem = try await changeSchema { connection in
                // Only when the tables were made by other statements, or one is missing
                // (``ServiceTables/schemaMark(_:)``).
                if try await !Self.serviceTablesCurrent(connection, logger: self.logger) {
                    for statement in ServiceTables.schema(.postgres) {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: self.logger)
                    }
                    let mark = ServiceTables.schemaMark(.postgres)
                    try await connection.query(
                        PostgresQuery(unsafeSQL: "COMMENT ON TABLE \(ServiceTables.store) IS '\(mark)'"),
                        logger: self.logger
                    )
                }
                return try await self.connectionLimitProblem(
                    connection,
                    self.primaryConfiguration,
                    alongside: alongside
                )
            }
            if limitProblem == nil, let readerConfiguration {
                let primary = alongside == nil ? nil : primaryConfiguration
                limitProblem = try await readStatement { connection in
                    try await self.connectionLimitProblem(connection, readerConfiguration, alongside: primary)
                }
            }
        } catch {
            // The pool retries a connection it cannot open until the call times out, so a
            // wrong host, port, password or database would read "did not answer in time".
            if let failure = await connectionFailure() { throw StoreError(list: nil, failure) }
            throw StoreError(list: nil, "cannot prepare the PostgreSQL store: \(Self.describe(error))")
        }
        if let limitProblem { throw StoreError(list: nil, limitProblem) }
        started.set()
    }

    // MARK: - Versions

    /// The store's version, which every write raises by one.
    public func version() async throws -> Int64 {
        try await transactions.read { session in try await StoreVersion.current(session) }
    }
}
