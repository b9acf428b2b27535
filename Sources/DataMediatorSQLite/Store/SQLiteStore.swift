import DataMediator
import DataMediatorSQL
import Foundation
import GRDB
import Synchronization

/// The embedded store: one SQLite file in WAL mode, read through a pool of connections.
///
/// At start-up it checks each list's source (tables and columns exist, queries run and
/// only read), creates missing tables from their declared fields, and creates one index
/// per view so every page is an index range scan.
public final class SQLiteStore: Sendable {
    /// The connection pool.
    public let database: DatabasePool
    /// The store's transactions, in which the rules both SQL stores share run.
    public let transactions: any SQLTransactions
    /// The writable lists over each of the store's tables.
    public let tableWriters = TableWriters()
    /// The indexes made for the lists over each of the store's tables.
    public let indexes = TableIndexes()
    /// The connections pages are read on without a thread switch: one per thread of the
    /// cooperative pool, which is as many as can read at once without waiting.
    let pageReaders: SQLitePageReaders
    /// The device and inode of the file opened: another file in its place (a restore copied
    /// over it) is not the store the pool reads.
    private let openedFile: [UInt64]?
    /// The last readiness look: when, and what it found.
    private let readiness = Mutex<(at: ContinuousClock.Instant, problem: String?)?>(nil)

    /// The size in bytes the write-ahead log is cut back to when it starts over
    /// (`journal_size_limit`): eight times what it holds between two automatic checkpoints.
    static let logSizeLimit = 32 << 20

    /// How many readers GRDB's pool opens at most (each only once reads need it at once)
    /// when the server's share of costly requests per client is not given: twice the
    /// default share (`max(2, cores)`, ``readers(forClientShare:)``).
    public static let readerCount = readers(forClientShare: max(2, ProcessInfo.processInfo.activeProcessorCount))

    /// The readers for a server whose clients may each have `share` costly requests in
    /// flight (`DATA_MEDIATOR_CLIENT_REQUESTS`): twice that, so that one client's slow
    /// counts and lookups, which hold a reader each, leave as many for other clients' change
    /// reads and streams (one per core was the default share: one client held them all);
    /// at most 64 (each holds a page cache and a file).
    public static func readers(forClientShare share: Int) -> Int {
        min(64, 2 * min(32, max(1, share)))
    }

    /// Opens (creating if needed) the store at `path`, with at most `readers` of GRDB's
    /// readers.
    ///
    /// - Throws: `StoreError` when the file cannot be opened as a SQLite database.
    public init(path: String, readers: Int = SQLiteStore.readerCount) throws {
        var configuration = GRDB.Configuration()
        configuration.busyMode = .timeout(5)
        // Reads that are not a page (counts, a query's result, a write's neighbours, change
        // reads) run on GRDB's readers, off the calling thread.
        configuration.maximumReaderCount = readers

        // The write-ahead log grows with every write while a reader (another program's
        // long transaction) keeps the checkpoint from its start, and SQLite keeps the file
        // at its largest until the store is closed; it is cut back to this once the log
        // starts over.
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA journal_size_limit = \(Self.logSizeLimit)")
        }
        try Self.checkPath(path)
        do {
            database = try DatabasePool(path: path, configuration: configuration)
            openedFile = Self.fileIdentity(path)
            try database.write { db in
                for statement in ServiceTables.schema(.sqlite) { try db.execute(sql: statement) }
                if try !db.columns(in: ServiceTables.versions).contains(where: { $0.name == "changed_at" }) {
                    // A store from before versions were store-wide: its change logs count
                    // per table, so they restart at the store's version.
                    try db.execute(
                        sql: """
                            ALTER TABLE \(ServiceTables.versions) ADD COLUMN changed_at INTEGER NOT NULL DEFAULT 0;
                            DELETE FROM \(ServiceTables.changes);
                            DELETE FROM \(ServiceTables.history);
                            """
                    )
                }
                if try !db.columns(in: ServiceTables.changes).contains(where: { $0.name == "old_item" }) {
                    try db.execute(sql: "ALTER TABLE \(ServiceTables.changes) ADD COLUMN old_item TEXT")
                }
            }
            pageReaders = try SQLitePageReaders(path: path, count: ProcessInfo.processInfo.activeProcessorCount)
        } catch let error as DatabaseError where error.isBusy {
            throw StoreError(list: nil, "cannot open the SQLite store at \(path): \(DatabaseError.busyWriterDetail)")
        } catch let error as DatabaseError where error.storeFileProblem != nil {
            throw StoreError(list: nil, "cannot open the SQLite store at \(path): \(error.storeFileProblem ?? "")")
        } catch {
            throw StoreError(list: nil, "cannot open the SQLite store at \(path): \(error)")
        }
        transactions = SQLiteTransactions(
            database: database,
            pageReaders: pageReaders,
            path: path,
            openedFile: openedFile,
            texts: SQLiteStatementTexts()
        )
    }

    /// Refuses a store path SQLite would refuse with words that do not say why: a folder
    /// that does not exist (SQLite makes the file, not its folder: "unable to open database
    /// file"), a folder or a device by that name ("disk I/O error" of `/dev/null`), and, when
    /// `writable`, a file or folder the service's user may not write (a store is written).
    ///
    /// - Throws: `StoreError` naming the path and the fix.
    public static func checkPath(_ path: String, writable: Bool = false) throws {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw StoreError(
                list: nil,
                "cannot open the SQLite store at \(path): the folder \(folder) does not exist; make it, "
                    + "or name a file in a folder that does (the file is made when missing)"
            )
        }
        var status = stat()
        let exists = stat(path, &status) == 0
        if exists, status.st_mode & S_IFMT != S_IFREG {
            throw StoreError(
                list: nil,
                "cannot open the SQLite store at \(path): it is \(status.st_mode & S_IFMT == S_IFDIR ? "a folder" : "not a regular file (a device, pipe or socket)"); "
                    + "name a database file (the file is made when missing)"
            )
        }
        if writable, access(folder, W_OK) != 0 || (exists && access(path, W_OK) != 0) {
            throw StoreError(list: nil, "cannot open the SQLite store at \(path): \(DatabaseError.readOnlyDetail)")
        }
    }

    /// Writes the WAL back into the database file and empties it, so a stopped service
    /// leaves one self-contained file behind.
    ///
    /// Not `waiting`, it writes back what it can at once (another program's read of an older
    /// snapshot keeps the rest in the WAL): emptying the WAL waits for such readers, up to
    /// the busy timeout, and holds off every write meanwhile (an import's last step kept a
    /// serving process's writes waiting 5 s, then `503`, while a backup read the file).
    public func checkpoint(waiting: Bool = true) throws {
        try database.writeWithoutTransaction { db in
            guard !waiting else {
                _ = try db.checkpoint(.truncate)
                return
            }
            let timeout = try Int.fetchOne(db, sql: "PRAGMA busy_timeout") ?? 0
            try db.execute(sql: "PRAGMA busy_timeout = 0")
            defer { try? db.execute(sql: "PRAGMA busy_timeout = \(timeout)") }
            do {
                _ = try db.checkpoint(.truncate)
            } catch let error as DatabaseError where error.isBusy {
                _ = try db.checkpoint(.passive)
            }
        }
    }

    /// The store's version: the sum of every table's counter, which every write raises by one.
    public func version() async throws -> Int64 {
        try await database.read { db in try Int64.fetchOne(db, sql: StoreVersion.currentSQL(.sqlite)) ?? 0 }
    }

    /// Why the store cannot serve now, for readiness checks; nil when it can: its file is
    /// still where it was opened (moved or deleted, every new connection fails), a
    /// connection of its own reads the schema and the version rows from the file (`SELECT 1`
    /// on the pool read no page, and the pool's cached pages hide a file broken under
    /// them), and every list's source still holds what the list reads (`sources`). Looked
    /// at once a second at most, however often it is asked.
    public func readinessProblem(checking sources: SourceCheck = SourceCheck([])) async -> String? {
        let now = ContinuousClock.now
        if let last = readiness.withLock({ $0 }), now - last.at < .seconds(1) { return last.problem }
        let problem =
            Self.fileIdentity(database.path) == openedFile
            ? Self.probe(path: database.path, sources: sources) : Self.unreadable
        readiness.withLock { $0 = (now, problem) }
        return problem
    }

    private static let unreadable = "The store's file cannot be read right now."

    /// The device and inode of the file at `path`; nil when there is none.
    static func fileIdentity(_ path: String) -> [UInt64]? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return [UInt64(status.st_dev), UInt64(status.st_ino)]
    }

    /// Why a new connection to `path` (a file there: ``fileIdentity(_:)`` said so) does
    /// not read its schema and version rows, or a list's source (`sources`); nil when it
    /// reads them all.
    private static func probe(path: String, sources: SourceCheck) -> String? {
        do {
            var configuration = GRDB.Configuration()
            configuration.readonly = true
            configuration.busyMode = .timeout(1)
            let connection = try DatabaseQueue(path: path, configuration: configuration)
            defer { try? connection.close() }
            return try connection.read { db in
                _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master")
                let missing = try ServiceTables.names(.sqlite).filter { try !db.tableExists($0) }
                if missing.isEmpty { _ = try Int64.fetchOne(db, sql: StoreVersion.currentSQL(.sqlite)) }
                return try CallingThreadExecutor.run {
                    try await sources.problem(missingServiceTables: missing) { try SQLiteCatalog.columns(of: $0, db) }
                }
            }
        } catch {
            return unreadable
        }
    }

    /// Checks a list's source against the database and returns its provider.
    ///
    /// - Throws: `StoreError` naming the missing table, column or the failing query.
    public func provider(for list: ListDefinition, source: StoreSource) throws -> SQLiteDataProvider {
        let schema = TableSchema(list: list, source: source, dialect: .sqlite)
        do {
            let (notNull, idIsIntegerColumn, collated, numeric) = try database.write { db in
                var added: [String: Set<String>] = [:]
                let (notNull, idIsIntegerColumn, collated, numeric) = try Self.checkSource(
                    of: list,
                    source,
                    schema,
                    db,
                    added: &added
                )
                let keyset = KeysetSQL(notNullColumns: notNull, collatedColumns: collated)
                for statement in schema.prepareStatements(keyset: keyset, indexes: indexes) {
                    try db.execute(
                        sql: statement.sql,
                        arguments: StatementArguments(values: statement.arguments.map(\.databaseValue))
                    )
                }
                return (notNull, idIsIntegerColumn, collated, numeric)
            }
            let keyset = KeysetSQL(
                notNullColumns: notNull,
                collatedColumns: collated,
                numericTextColumns: numeric.filter { source.fieldTypes[$0] == .string }
            )
            let reader = SQLListReader(
                list: list.name,
                transactions: transactions,
                viewsAreIndexed: source.isTable,
                from: schema.from,
                columns: schema.columns,
                idField: list.idField,
                idIsInteger: source.fieldTypes[list.idField] == .integer,
                idColumnHasIntegerAffinity: idIsIntegerColumn,
                fieldTypes: source.fieldTypes,
                keyset: keyset,
                versionTables: source.allVersionTables,
                windows: WindowQueries.versioned(columns: schema.columns, from: schema.from, keyset: keyset),
                loggedKeys: schema.loggedKeys,
                numericTextFields: numeric.filter { source.fieldTypes[$0] == .string }
            )
            return SQLiteDataProvider(reader: reader, pageReaders: pageReaders)
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(list: list.name, "\(error)")
        }
    }

    /// The adapter of a list over this store: its provider, and for a writable list its
    /// writer and change log.
    ///
    /// - Throws: `StoreError` as ``provider(for:source:)`` and
    ///   ``DataMediatorSQL/SQLListAssembly/writes(for:source:reader:tableWriters:)`` do.
    public func adapter(
        for list: ListDefinition,
        source: StoreSource,
        signer: CursorSigner,
        notifier: ChangeNotifier = ChangeNotifier()
    ) throws -> ListAdapter {
        let provider = try provider(for: list, source: source)
        return try SQLListAssembly.adapter(
            for: list,
            source: source,
            provider: provider,
            tableWriters: tableWriters,
            signer: signer,
            notifier: notifier
        )
    }
}
