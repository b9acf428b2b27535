import DataMediator
import DataMediatorSQL
import Foundation
import GRDB

/// The embedded store: one SQLite file in WAL mode, read through a pool of connections.
///
/// At start-up it checks each list's source (tables and columns exist, queries run and
/// only read), creates missing tables from their declared fields, and creates one index
/// per view so every page is an index range scan.
public final class SQLiteStore: Sendable {
    /// The table that holds each source table's change counter (`version`: writes to it
    /// through the API) and the store's version after its last write (`changed_at`).
    ///
    /// The store's version is the sum of every table's counter: each write raises it by
    /// one, so it orders every write of the store, and every list over the store reports
    /// it. Lists of one store (a composite's children among them) share one version space.
    public static let versionTable = "data_mediator_versions"

    /// The connection pool.
    public let database: DatabasePool
    /// The connections pages are read on without a thread switch: one per thread of the
    /// cooperative pool, which is as many as can read at once without waiting.
    let pageReaders: SQLitePageReaders

    /// Opens (creating if needed) the store at `path`.
    ///
    /// - Throws: `StoreError` when the file cannot be opened as a SQLite database.
    public init(path: String) throws {
        var configuration = GRDB.Configuration()
        configuration.busyMode = .timeout(5)
        do {
            database = try DatabasePool(path: path, configuration: configuration)
            try database.write { db in
                try db.execute(
                    sql: """
                        CREATE TABLE IF NOT EXISTS \(Self.versionTable) (
                            source TEXT PRIMARY KEY NOT NULL,
                            version INTEGER NOT NULL DEFAULT 0,
                            changed_at INTEGER NOT NULL DEFAULT 0
                        )
                        """
                )
                try SQLiteChangeLog.createTables(in: db)
                if try !db.columns(in: Self.versionTable).contains(where: { $0.name == "changed_at" }) {
                    // A store from before versions were store-wide: its change logs count
                    // per table, so they restart at the store's version.
                    try db.execute(
                        sql: """
                            ALTER TABLE \(Self.versionTable) ADD COLUMN changed_at INTEGER NOT NULL DEFAULT 0;
                            DELETE FROM \(SQLiteChangeLog.changesTable);
                            DELETE FROM \(SQLiteChangeLog.historyTable);
                            """
                    )
                }
                try SQLiteItemWriter.createTables(in: db)
            }
            pageReaders = try SQLitePageReaders(path: path, count: ProcessInfo.processInfo.activeProcessorCount)
        } catch {
            throw StoreError(list: nil, "cannot open the SQLite store at \(path): \(error)")
        }
    }

    /// Raises `table`'s counter, and so the store's version, by one, in the caller's
    /// transaction; records the new store version as the table's last change and returns it.
    ///
    /// - Throws: `unavailable` when the table has no version row (its list was never
    ///   opened with ``provider(for:source:)``).
    static func bumpVersion(of table: String, in db: Database) throws -> Int64 {
        let version = try Int64.fetchOne(
            db.cachedStatement(
                sql: """
                    UPDATE \(versionTable)
                    SET version = version + 1,
                        changed_at = (SELECT COALESCE(SUM(version), 0) FROM \(versionTable)) + 1
                    WHERE source = ? RETURNING changed_at
                    """
            ),
            arguments: [table]
        )
        guard let version else { throw DataMediatorError(.unavailable, "The table '\(table)' has no version row.") }
        return version
    }

    /// Writes the WAL back into the database file and empties it, so a stopped service
    /// leaves one self-contained file behind.
    public func checkpoint() throws {
        try database.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
    }

    /// The store's version: the sum of every table's counter, which every write raises by one.
    public func version() async throws -> Int64 {
        try await database.read { db in
            try Int64.fetchOne(db, sql: "SELECT COALESCE(SUM(version), 0) FROM \(Self.versionTable)") ?? 0
        }
    }

    /// Whether the store answers a query now, for readiness checks.
    public func isReadable() async -> Bool {
        do {
            try await database.read { db in try db.execute(sql: "SELECT 1") }
            return true
        } catch {
            return false
        }
    }

    /// Checks a list's source against the database and returns its provider.
    ///
    /// - Throws: `StoreError` naming the missing table, column or the failing query.
    public func provider(for list: ListDefinition, source: StoreSource) throws -> SQLiteDataProvider {
        let needed = StoreSource.columns(of: list)
        do {
            return try database.write { db in
                let from: String
                let available: [String]
                var notNull: Set<String> = []
                switch source.kind {
                case .table(let table):
                    if try !db.tableExists(table) {
                        try Self.createTable(table, list: list, source: source, in: db)
                    }
                    if list.isWritable, let revision = list.revisionField,
                        try !db.columns(in: table).contains(where: { $0.name == revision })
                    {
                        try db.execute(
                            sql:
                                "ALTER TABLE \(SQL.quote(table)) ADD COLUMN \(SQL.quote(revision)) INTEGER NOT NULL DEFAULT 1"
                        )
                    }
                    let columns = try db.columns(in: table)
                    available = columns.map(\.name)
                    notNull = Set(columns.filter(\.isNotNull).map(\.name))
                    if let primaryKey = try? db.primaryKey(table), primaryKey.columns == [list.idField] {
                        notNull.insert(list.idField)
                    }
                    from = SQL.quote(table)
                case .query(let query):
                    let statement: Statement
                    do {
                        statement = try db.makeStatement(sql: "SELECT * FROM (\(query)) LIMIT 0")
                    } catch {
                        throw StoreError(list: list.name, "its query does not run: \(error)")
                    }
                    guard statement.isReadonly else {
                        throw StoreError(list: list.name, "its query must only read (a SELECT)")
                    }
                    available = statement.columnNames
                    from = "(\(query)) AS source"
                }
                // A writable list writes every declared field, so each must be a column.
                let written = list.isWritable ? source.fieldTypes.keys.sorted().filter { !needed.contains($0) } : []
                let missing = (needed + written).filter { !available.contains($0) }
                if !missing.isEmpty {
                    throw StoreError(
                        list: list.name,
                        "its source has no column \(missing.map { "'\($0)'" }.joined(separator: ", ")); "
                            + "the columns are \(available.map { "'\($0)'" }.joined(separator: ", "))"
                    )
                }
                for table in source.allVersionTables {
                    try db.execute(
                        sql: "INSERT OR IGNORE INTO \(Self.versionTable) (source, version) VALUES (?, 0)",
                        arguments: [table]
                    )
                }
                if case .table(let table) = source.kind {
                    for view in list.views {
                        try Self.createIndex(for: view, on: table, in: db)
                    }
                }
                return SQLiteDataProvider(
                    database: database,
                    pageReaders: pageReaders,
                    viewsAreIndexed: source.isTable,
                    from: from,
                    columns: needed,
                    idField: list.idField,
                    fieldTypes: source.fieldTypes,
                    notNullColumns: notNull,
                    versionTables: source.allVersionTables
                )
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(list: list.name, "\(error)")
        }
    }

    /// The writer and change log of a writable table list, or nil for a list that is not
    /// writable. `provider` comes from ``provider(for:source:)``, which has added the
    /// revision column (`INTEGER NOT NULL DEFAULT 1`) to a table that lacked it.
    ///
    /// - Throws: `StoreError` when the list is writable but its source is a query, or
    ///   it has no revision field.
    public func writer(
        for list: ListDefinition,
        source: StoreSource,
        provider: SQLiteDataProvider
    ) throws -> (writer: SQLiteItemWriter, changeLog: SQLiteChangeLog)? {
        guard let (table, revision) = try source.writeTarget(of: list) else { return nil }
        let columns = StoreSource.columns(of: list)
        let changeLog = SQLiteChangeLog(database: database, list: list, provider: provider, columns: columns)
        do {
            try database.write { db in
                try changeLog.start(in: db)
            }
        } catch {
            throw StoreError(list: list.name, "cannot prepare writes: \(error)")
        }
        let writer = SQLiteItemWriter(
            database: database,
            list: list,
            table: table,
            revisionField: revision,
            fieldTypes: source.fieldTypes,
            columns: columns,
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
    ) throws -> ListAdapter {
        let provider = try provider(for: list, source: source)
        let writes = try writer(for: list, source: source, provider: provider)
        return ListAdapter(
            definition: list,
            provider: provider,
            signer: signer,
            writer: writes?.writer,
            changeLog: writes?.changeLog ?? ReloadLog(lastChange: { try await provider.lastChange() }),
            notifier: notifier
        )
    }

    private static func createTable(_ table: String, list: ListDefinition, source: StoreSource, in db: Database) throws
    {
        var definitions = [
            "\(SQL.quote(list.idField)) \(sqlType(source.fieldTypes[list.idField])) PRIMARY KEY NOT NULL"
        ]
        let declared = source.fieldTypes.keys.sorted()
        var seen: Set<String> = [list.idField]
        for field in StoreSource.columns(of: list) + declared where seen.insert(field).inserted {
            if field == list.revisionField {
                definitions.append("\(SQL.quote(field)) INTEGER NOT NULL DEFAULT 1")
            } else {
                definitions.append("\(SQL.quote(field)) \(sqlType(source.fieldTypes[field]))")
            }
        }
        try db.execute(sql: "CREATE TABLE \(SQL.quote(table)) (\(definitions.joined(separator: ", ")))")
    }

    private static func sqlType(_ type: FieldType?) -> String {
        switch type {
        case .integer, .boolean: return "INTEGER"
        case .number: return "REAL"
        case .string, .json, nil: return "TEXT"
        }
    }

    private static func createIndex(for view: View, on table: String, in db: Database) throws {
        try db.execute(sql: KeysetSQL(notNullColumns: []).indexStatement(for: view, on: table))
    }
}
