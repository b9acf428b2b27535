import DataMediator
import DataMediatorHTTP
import DataMediatorPostgres
import DataMediatorSQL
import DataMediatorSQLite
import Foundation
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// Where the service's lists are stored, opened.
enum OpenStore: Sendable {
    /// The embedded SQLite store.
    case sqlite(SQLiteStore)
    /// The PostgreSQL store shared by every replica; its clients run as services.
    case postgres(PostgresStore)
}

/// Builds the service from its settings, in two steps: ``init(settings:environment:eventLoops:logger:)``
/// loads the config (or the demo's) and opens the store; then ``registry(logger:)`` checks
/// each list's source and puts the lists in a registry (for PostgreSQL, once the store's
/// clients run). The data folder and the cursor secret are made once nothing refused the
/// start can be known: before a SQLite store is opened (its file may be in the folder),
/// after a PostgreSQL store's lists and pool sizes passed.
struct Wiring: Sendable {
    /// Wakes every list's live streams after writes; finished at shutdown.
    let notifier = ChangeNotifier()
    /// The store.
    let store: OpenStore
    /// Whether the lists are the built-in demo's.
    let isDemo: Bool
    private let configuration: MediatorConfiguration
    private let configFile: String
    /// The cursors' signer, for a SQLite store; nil for PostgreSQL until ``registry(logger:)``.
    private let signer: CursorSigner?
    /// Where a cursor secret not made yet comes from: the environment, else the data folder.
    private let secretSource: (environment: [String: String], dataDir: String)
    private let demoTransactions: Int
    /// The item files' items by list, read when the config was checked against a SQLite
    /// store before it was opened (nil otherwise: ``registry(logger:)`` checks then).
    private let checkedFiles: [String: [Item]]?

    /// Loads the config (making the SQLite demo when there is none) and opens the store;
    /// a SQLite store's lists are checked first, so that a config refused makes nothing.
    ///
    /// - Throws: ``ConfigFileErrors`` for a bad config, or lists its SQLite store refuses; other errors when the data folder,
    ///   the store or the database URL is unusable.
    init(
        settings: ServeConfiguration,
        environment: [String: String],
        eventLoops: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger
    ) async throws {
        demoTransactions = settings.demoTransactions
        if let path = settings.config {
            configuration = try ConfigFileLoader.load(path: path)
            configFile = path
            isDemo = false
        } else {
            var loader = ConfigFileLoader(file: "(built-in demo)", baseDirectory: settings.dataDir)
            configuration = try loader.parse(settings.databaseURL == nil ? DemoConfig.yaml : DemoConfig.postgresYAML)
            configFile = "(built-in demo)"
            isDemo = true
        }
        // What the settings ask of the store is checked before anything is written: a
        // refused config leaves no data folder and no cursor secret behind.
        let target = try Self.target(
            of: configuration.store,
            settings: settings,
            configFile: configFile,
            isDemo: isDemo
        )
        // A config refused for a list leaves nothing either: a SQLite store is checked as
        // `check --store` checks it before it is opened (no file, no service tables made).
        if !isDemo, case .sqlite(let path) = target {
            checkedFiles = try await Self.rehearse(configuration, file: configFile) { lists in
                try CommandStore.rehearse(lists, inSQLiteAt: path)
            }
        } else {
            checkedFiles = nil
        }
        secretSource = (environment, settings.dataDir)
        if case .sqlite = target {
            signer = try Self.signer(from: secretSource, demoStore: isDemo, logger: logger)
        } else {
            signer = nil
        }
        switch target {
        case .sqlite(let path):
            if isDemo {
                let start = ContinuousClock.now
                if try DemoData.create(at: path, transactions: settings.demoTransactions) {
                    logger.info(
                        "created the demo store",
                        metadata: [
                            "path": "\(path)", "transactions": "\(settings.demoTransactions)",
                            "took": "\(ContinuousClock.now - start)",
                        ]
                    )
                }
                logger.info("serving the built-in demo", metadata: ["store": "\(path)"])
            }
            store = .sqlite(
                try SQLiteStore(
                    path: path,
                    readers: SQLiteStore.readers(forClientShare: settings.limits.requestsPerClient)
                )
            )
        case .postgres(let url):
            store = .postgres(
                try PostgresStore(
                    url: url,
                    readURL: settings.databaseReadURL,
                    maximumConnections: settings.databaseConnections,
                    timeout: .seconds(settings.databaseTimeoutSeconds),
                    eventLoops: eventLoops,
                    prepareStatements: settings.databasePrepare,
                    poolSizeSetting: "DATA_MEDIATOR_DATABASE_CONNECTIONS",
                    // The change listener's, for as long as the service runs.
                    heldConnections: 1,
                    logger: logger
                )
            )
        }
    }

    /// The refusal of a database URL (`name`) set for a config whose store is the SQLite
    /// file at `path`: the operator means PostgreSQL. `serve` and `check --store` say it.
    static func urlBesideSQLite(_ name: String, path: String) -> String {
        "\(name) is set, but the store is SQLite ('\(path)'); give the config 'store: postgres', or unset \(name)"
    }

    /// The store a config's `store` and the database settings name.
    private enum Target {
        case sqlite(String)
        case postgres(url: String)
    }

    /// The store `store` names with the database URLs of `settings`, refusing a database
    /// URL the store would not use (the operator means PostgreSQL, and would be served from
    /// a local file without a word) and a PostgreSQL store without one.
    private static func target(
        of store: StoreLocation,
        settings: ServeConfiguration,
        configFile: String,
        isDemo: Bool
    ) throws(ConfigFileErrors) -> Target {
        func refusal(_ message: String) -> ConfigFileErrors {
            ConfigFileErrors(errors: [ConfigFileError(file: configFile, line: 1, column: 1, message: message)])
        }
        switch store {
        case .sqlite(let path):
            let unused =
                settings.databaseURL != nil
                ? "DATA_MEDIATOR_DATABASE_URL"
                : settings.databaseReadURL != nil ? "DATA_MEDIATOR_DATABASE_READ_URL" : nil
            guard let name = unused else { return .sqlite(path) }
            throw refusal(
                isDemo
                    ? "\(name) is set without DATA_MEDIATOR_DATABASE_URL; set both to serve the demo from PostgreSQL, "
                        + "or neither"
                    : urlBesideSQLite(name, path: path)
            )
        case .postgres:
            guard let url = settings.databaseURL else {
                throw refusal(
                    "'store: postgres' needs DATA_MEDIATOR_DATABASE_URL (postgres://user:password@host:port/database)"
                )
            }
            return .postgres(url: url)
        }
    }

    /// The services the store needs running while the service runs: PostgreSQL's clients,
    /// its change listener and the keep-alive of its connections; none for SQLite.
    func storeServices(logger: Logger) -> [any Service] {
        guard case .postgres(let store) = store else { return [] }
        return store.clients + [
            PostgresChangeListener(store: store, notifier: notifier, logger: logger),
            DatabaseKeepAlive(ports: store.ports, logger: logger),
        ]
    }

    /// The watch for other programs' writes to the lists' tables, every `interval`.
    func outsideWriteWatch(interval: Duration, logger: Logger) -> OutsideWriteWatch {
        let (transactions, indexes): (any SQLTransactions, TableIndexes)
        switch store {
        case .sqlite(let store): (transactions, indexes) = (store.transactions, store.indexes)
        case .postgres(let store): (transactions, indexes) = (store.transactions, store.indexes)
        }
        return OutsideWriteWatch(
            transactions: transactions,
            indexes: indexes,
            notifier: notifier,
            interval: interval,
            logger: logger
        )
    }

    /// Why the store cannot serve now (nil when it can), for `GET /ready`: it cannot be
    /// read, or a list's source no longer holds what the list reads (``SourceCheck``), and
    /// then the composites showing such a list (``compositesProblem(_:composites:)``).
    var readiness: @Sendable () async -> String? {
        let sourced = configuration.lists.filter { $0.file == nil }.compactMap { list in
            list.source.map { (list.definition, $0) }
        }
        let dialect: SQLDialect = if case .sqlite = store { .sqlite } else { .postgres }
        let sources = SourceCheck(sourced.map { TableSchema(list: $0, source: $1, dialect: dialect) })
        let problem: @Sendable () async -> String? =
            switch store {
            case .sqlite(let store): { await store.readinessProblem(checking: sources) }
            case .postgres(let store): { await store.readinessProblem(checking: sources) }
            }
        let composites = configuration.composites
        return {
            guard let said = await problem() else { return nil }
            return Self.compositesProblem(said, composites: composites).map { said + " " + $0 } ?? said
        }
    }

    /// How far the read replica stands behind the primary, for `GET /metrics` and
    /// `GET /ready`; nil for a store without one.
    var replicaLag: (@Sendable () async throws -> ReplicaLag?)? {
        guard case .postgres(let store) = store else { return nil }
        return { try await store.replicaLag() }
    }

    /// The primary's version now (the store's, without a read replica), for the reads of
    /// a store with one; nil for SQLite.
    var primaryVersion: (@Sendable () async throws -> Int64)? {
        guard case .postgres(let store) = store else { return nil }
        return { try await store.primaryVersion() }
    }

    /// The store's version, for `GET /metrics`.
    var storeVersion: @Sendable () async throws -> Int64 {
        switch store {
        case .sqlite(let store): return { try await store.version() }
        case .postgres(let store): return { try await store.version() }
        }
    }

    /// The signer of the environment's cursor secret, or else of the one the data folder
    /// keeps (the folder made when missing: only then, or for the demo's SQLite store,
    /// `demoStore`, since nothing else goes in it).
    /// A secret made on a PostgreSQL store is warned of: each replica of the service would
    /// make its own, and refuse the others' cursors.
    private static func signer(
        from source: (environment: [String: String], dataDir: String),
        demoStore: Bool = false,
        sharedStore: Bool = false,
        logger: Logger
    ) throws -> CursorSigner {
        // The environment's secrets are checked first: a start they refuse makes no folder.
        let configured = try CursorSecret.configured(environment: source.environment)
        let previous = try CursorSecret.previous(environment: source.environment)
        // The demo's store is the folder's first use, and its refusal says so.
        if demoStore { try DataFolder.make(source.dataDir, for: .demoStore) }
        if let configured { return CursorSigner(secret: configured, previous: previous) }
        try DataFolder.make(source.dataDir, for: .cursorSecret)
        if sharedStore {
            logger.warning(
                """
                DATA_MEDIATOR_CURSOR_SECRET is not set: cursors are signed with a secret kept in this data folder; \
                every replica of the service on this database must be given one secret, or each refuses the \
                others' cursors (400 bad-cursor)
                """,
                metadata: ["path": "\(source.dataDir)/\(CursorSecret.fileName)"]
            )
        }
        return CursorSigner(
            secret: try CursorSecret.load(environment: source.environment, dataDir: source.dataDir, logger: logger),
            previous: previous
        )
    }

    /// Refuses a PostgreSQL store whose pools are larger than their servers allow, before
    /// the pools open their connections (``PostgresStore/checkConnectionLimits()``).
    func checkConnectionLimits() async throws {
        if case .postgres(let store) = store { try await store.checkConnectionLimits() }
    }

    /// Checks every list's source (creating missing tables and indexes, and the PostgreSQL
    /// demo's data) and returns the lists, composites included, in the config's order.
    ///
    /// - Throws: ``ConfigFileErrors`` for lists whose source does not fit their declaration.
    func registry(logger: Logger) async throws -> ListRegistry {
        var checked = checkedFiles
        if case .postgres(let store) = store, !isDemo {
            // Every list checked before the service's own tables are made: a refused config
            // makes nothing in the database (the demo's lists are over tables made below).
            checked = try await Self.rehearse(configuration, file: configFile) { lists in
                try await store.check(lists, bounded: false)
            }
        }
        // Nor a data folder or a cursor secret (a SQLite store's were made before it opened).
        let signer = try self.signer ?? Self.signer(from: secretSource, sharedStore: true, logger: logger)
        if case .postgres(let store) = store {
            try await store.prepare()
            if isDemo {
                let start = ContinuousClock.now
                if try await PostgresDemoData.create(in: store, transactions: demoTransactions) {
                    logger.info(
                        "created the demo tables",
                        metadata: ["transactions": "\(demoTransactions)", "took": "\(ContinuousClock.now - start)"]
                    )
                }
                logger.info("serving the built-in demo from PostgreSQL")
            }
        }
        // Every list is checked before any is prepared: a config refused for one list
        // leaves no table, column or index made for another.
        let files: [String: [Item]]
        if let checked { files = checked } else { files = try await rehearse() }
        var adapters: [ListAdapter] = []
        var problems: [ConfigFileError] = []
        for list in configuration.preparationOrder {
            do {
                if let items = files[list.definition.name] {
                    let provider = ArrayDataProvider(
                        items: items,
                        idField: list.definition.idField,
                        views: list.definition.views,
                        scopeField: list.definition.scope?.field
                    )
                    adapters.append(
                        ListAdapter(definition: list.definition, provider: provider, signer: signer, notifier: notifier)
                    )
                    continue
                }
                guard let source = list.source else { continue }
                switch store {
                case .sqlite(let store):
                    adapters.append(
                        try store.adapter(for: list.definition, source: source, signer: signer, notifier: notifier)
                    )
                case .postgres(let store):
                    adapters.append(
                        try await store.adapter(
                            for: list.definition,
                            source: source,
                            signer: signer,
                            notifier: notifier
                        )
                    )
                }
            } catch let error as StoreError {
                problems.append(
                    ConfigFileError(file: configFile, line: list.line, column: 1, message: error.description)
                )
            }
        }
        if !problems.isEmpty { throw ConfigFileErrors(errors: problems.sorted { $0.line < $1.line }) }
        let built = Self.composites(configuration.composites, over: adapters, signer: signer, notifier: notifier)
        let byName = Dictionary(
            (adapters + built).map { ($0.definition.name, $0) },
            uniquingKeysWith: { first, _ in first }
        )
        return ListRegistry(configuration.order.compactMap { byName[$0] })
    }

    /// Checks every list against the store, in one transaction rolled back, and reads the
    /// item files of the lists served from one; returns those items by list name.
    ///
    /// - Throws: ``ConfigFileErrors`` for every list whose source does not fit its
    ///   declaration, or whose file cannot be read.
    private func rehearse() async throws -> [String: [Item]] {
        try await Self.rehearse(configuration, file: configFile) { sourced in
            switch store {
            case .sqlite(let store): try store.rehearse(sourced)
            case .postgres(let store): try await store.rehearse(sourced)
            }
        }
    }
}
