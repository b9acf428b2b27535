import DataMediator

/// Changes to the lists' tables that the service did not log item by item: another
/// program's writes, an import, a `TRUNCATE`. Their change feeds learn of them as one
/// `reload` at a version of their own.
///
/// Every change to a table is counted in its stamp's log, a row per writing transaction
/// (``TableStamps``); a write through the API moves its own row into the table's counter
/// as it commits, so the rows that stay are changes the service did not log. A watcher
/// (``check(_:indexes:)``) looks for them; where there are some, it raises the store's
/// version for the table (so query lists reload too), records that version and moves the
/// rows into the counter, all under the store's version lock, so replicas that check at
/// once notice each change once.
public enum OutsideWrites {
    /// Per table, the versions at which changes the service did not log were noticed: a
    /// feed answers a `reload` at the first one after `since`, so a later one does not hide
    /// it (the changes logged between them would name items the client never had).
    public static let versions = "data_mediator_outside_versions"

    /// The statements that create the tables when missing.
    static func schema(_ dialect: SQLDialect) -> [String] {
        [
            ServiceTables.keyedTable(
                versions,
                [("source", \.text), ("version", \.integer)],
                key: ["source", "version"],
                dialect
            )
        ]
    }

    /// Records a change of `source` the service did not log item by item at `version`, and
    /// moves the changes its log holds into its counter, in the session's transaction
    /// (which holds the store's version lock).
    static func record(_ source: String, at version: Int64, _ session: any SQLSession) async throws {
        try await TableStamps.fold(source, session)
        try await session.execute(
            "INSERT INTO \(versions) (source, version) VALUES (?, ?) ON CONFLICT DO NOTHING",
            [.string(source), .integer(version)]
        )
        // Those before every list's history floor are past what any feed answers (an older
        // `since` is 410); all but this one when no list keeps a history.
        try await session.execute(
            """
            DELETE FROM \(versions) WHERE source = ?
            AND version < (SELECT COALESCE(MIN(floor), ?) FROM \(ServiceTables.history))
            """,
            [.string(source), .integer(version)]
        )
    }

    /// The version of the first change of `source` after `since` that the service did not
    /// log item by item (0: none), in the session's snapshot.
    static func firstVersion(of source: String, after since: Int64, _ session: any SQLSession) async throws -> Int64 {
        try await session.integer(
            "SELECT COALESCE(MIN(version), 0) FROM \(versions) WHERE source = ? AND version > ?",
            [.string(source), .integer(since)]
        )
    }

    /// The tables whose changes are looked for (those the service keeps a stamp for), by
    /// the names ``Look/recorded`` gives them.
    public static func watchedTables(_ transactions: any SQLTransactions) async throws -> [String] {
        try await transactions.read { session in
            try await session.rows("SELECT source FROM \(ServiceTables.stamps) ORDER BY source", [])
                .compactMap { $0.first?.stringValue }
        }
    }

    /// The statement that finds the tables with changes in their stamp's log: changes no
    /// write through the API moved into the counter as it committed.
    private static let movedSQL = "SELECT DISTINCT source FROM \(ServiceTables.stampLog) ORDER BY source"

    /// The statement that finds the tables the service keeps a stamp for that lack one of
    /// their triggers: a table another program replaced (dropped and made again, or renamed
    /// over it: the triggers went with the old one, which SQLite keeps them on under its new
    /// name), or whose trigger it dropped (or disabled, on PostgreSQL), so some of its
    /// changes no longer move its stamp. SQLite's names are matched without case, as
    /// SQLite matches them (a table made again as `ITEMS` is `items`).
    static func unwatchedSQL(_ dialect: SQLDialect) -> String {
        switch dialect {
        case .sqlite:
            let names = ["insert", "update", "delete"].map {
                "'\(TableStamps.sqliteTriggerPrefix)\($0)_' || stamps.source"
            }
            return """
                SELECT stamps.source FROM \(ServiceTables.stamps) AS stamps
                WHERE EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = stamps.source COLLATE NOCASE)
                AND (
                    SELECT count(*) FROM sqlite_master WHERE type = 'trigger'
                    AND tbl_name = stamps.source COLLATE NOCASE
                    AND name COLLATE NOCASE IN (\(names.joined(separator: ", ")))
                ) < \(names.count) ORDER BY stamps.source
                """
        case .postgres:
            let names = TableStamps.postgresTriggers.map { "'\($0)'" }.joined(separator: ", ")
            return """
                SELECT stamps.source FROM \(ServiceTables.stamps) AS stamps
                JOIN pg_class AS c ON c.oid = to_regclass(quote_ident(stamps.source)) AND c.relkind IN ('r', 'p')
                WHERE (
                    SELECT count(*) FROM pg_trigger AS t
                    WHERE t.tgrelid = c.oid AND t.tgname IN (\(names)) AND t.tgenabled <> 'D'
                ) < \(TableStamps.postgresTriggers.count) ORDER BY stamps.source
                """
        }
    }

    /// The statement that finds the tables the service keeps a stamp for that are gone (another
    /// program dropped them, or renamed them away): what was kept of them (their sections and
    /// counts) no longer holds, and their lists cannot be read until they are back.
    static func goneSQL(_ dialect: SQLDialect) -> String {
        switch dialect {
        case .sqlite:
            return """
                SELECT stamps.source FROM \(ServiceTables.stamps) AS stamps
                WHERE NOT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = stamps.source COLLATE NOCASE)
                ORDER BY stamps.source
                """
        case .postgres:
            return """
                SELECT stamps.source FROM \(ServiceTables.stamps) AS stamps
                WHERE to_regclass(quote_ident(stamps.source)) IS NULL ORDER BY stamps.source
                """
        }
    }

    /// What one look found: the tables changed outside the service, each with the version
    /// it was recorded at, and the store's version (when it moved since the last look, a
    /// process that cannot signal this one, such as an import into a SQLite store, wrote).
    public struct Look: Sendable {
        /// The tables recorded, with their versions; none when nothing moved.
        public let recorded: [(table: String, version: Int64)]
        /// The store's version after the look.
        public let version: Int64
        /// The tables found replaced, whose triggers and indexes were made again.
        public var replaced: [String] = []
        /// Why an index of a replaced table could not be made (the table's reads scan until
        /// the next start of `serve`); nil when all were.
        public var indexFailure: String?
        /// The tables found gone (``goneSQL(_:)``), those recorded before among them.
        public var gone: [String] = []
    }

    /// Looks for changes the service did not make and records each table's at a new version
    /// of its own (``StoreVersion/bump(for:_:)``: on PostgreSQL every replica is told). A
    /// read first, so that a store nobody else writes costs one statement and no lock.
    ///
    /// A table whose triggers are gone (``unwatchedSQL(_:)``) gets them again, its stamp
    /// raised (what was kept of its rows is read again) and its change recorded so; then,
    /// past the version lock, the indexes `indexes` records on it (each in a write of its own
    /// with no deadline: building one on a big table takes a while).
    ///
    /// A table gone since the last look (not among `gone`, what it found gone) gets its stamp
    /// raised and its change recorded so too: its lists' sections and counts are read anew
    /// (and fail, as their pages do, until it is back), and their feeds answer a `reload`.
    public static func check(
        _ transactions: any SQLTransactions,
        indexes: TableIndexes? = nil,
        gone known: Set<String> = []
    ) async throws -> Look {
        let (moved, unwatched, gone, version) = try await transactions.read { session in
            (
                try await session.rows(movedSQL, []), try await session.rows(unwatchedSQL(session.dialect), []),
                try await session.rows(goneSQL(session.dialect), []).compactMap { $0.first?.stringValue },
                try await StoreVersion.current(session)
            )
        }
        guard !moved.isEmpty || !unwatched.isEmpty || !Set(gone).isSubset(of: known) else {
            return Look(recorded: [], version: version, gone: gone)
        }
        var look = try await transactions.write { session in
            try await StoreVersion.lock(session)
            // Read again under the lock: another replica may have recorded them meanwhile.
            var sources = Set(try await session.rows(movedSQL, []).compactMap { $0.first?.stringValue })
            let gone = try await session.rows(goneSQL(session.dialect), []).compactMap { $0.first?.stringValue }
            for source in gone where !known.contains(source) {
                try await session.execute(TableStamps.raiseSQL(of: source), [])
                sources.insert(source)
            }
            var replaced: [String] = []
            for row in try await session.rows(unwatchedSQL(session.dialect), []) {
                guard let source = row.first?.stringValue else { continue }
                replaced.append(source)
                for statement in TableStamps.prepareStatements(for: source, session.dialect) {
                    try await session.execute(statement, [])
                }
                try await session.execute(TableStamps.raiseSQL(of: source), [])
                sources.insert(source)
            }
            var recorded: [(table: String, version: Int64)] = []
            for source in sources.sorted() {
                let version = try await StoreVersion.bump(for: source, session)
                try await record(source, at: version, session)
                recorded.append((source, version))
            }
            return Look(
                recorded: recorded,
                version: try await StoreVersion.current(session),
                replaced: replaced,
                gone: gone
            )
        }
        // The look is recorded: a failure here is told, not thrown.
        for table in look.replaced {
            for statement in indexes?.statements(on: table) ?? [] {
                do {
                    try await transactions.bulkWrite { try await $0.execute(statement, []) }
                } catch {
                    look.indexFailure = "\(table): \(error)"
                }
            }
        }
        return look
    }
}
