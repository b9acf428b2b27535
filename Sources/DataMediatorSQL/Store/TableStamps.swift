import DataMediator

/// A counter per source table that every change to the table raises, in the changing
/// transaction, whoever makes it: the service's writes, an import, or another program
/// writing to the store. Triggers count the changes (row triggers on SQLite, statement
/// triggers on PostgreSQL that count a statement only when it changed rows), so what the
/// service computes from a table's rows (section counts, the marks that place an item, a
/// query list's result) is kept while the stamps of the tables it reads stay put, and
/// computed again once after they move.
///
/// A table's stamp is its row of ``ServiceTables/stamps`` plus the changes its writers
/// logged since (``ServiceTables/stampLog``): the triggers write one row per writing
/// transaction and table there, its own, so other programs' writers of one table never
/// wait for one another, nor for the service (a counter they all raised would be one row
/// each writer holds until it commits: writes of one table would take turns, and two
/// tables written in opposite orders could deadlock). The service moves the counts into the counter
/// with the store's version lock held: a write through the API its own one step
/// (``foldOwn(_:_:)``), the watch of other programs' writes the rest
/// (``OutsideWrites``), which is how it tells them apart.
///
/// The store's version does not serve here: rows other programs write do not raise it.
public enum TableStamps {
    /// The service's tables and, on PostgreSQL, the function every table's trigger calls.
    /// The function keeps the search path it was made with, where the service's tables
    /// are: another program's session may have another one, and logical replication's
    /// apply runs with none.
    static func schema(_ dialect: SQLDialect) -> [String] {
        let types = SQLTypes(dialect)
        let tables = [
            """
            CREATE TABLE IF NOT EXISTS \(ServiceTables.stamps) (
                source \(types.text) PRIMARY KEY NOT NULL,
                stamp \(types.integer) NOT NULL DEFAULT 0
            )
            """,
            ServiceTables.keyedTable(
                ServiceTables.stampLog,
                [("source", \.text), ("writer", \.integer), ("statements", \.integer)],
                key: ["source", "writer"],
                dialect
            ),
        ]
        switch dialect {
        case .sqlite:
            return tables + accountedBefore(dialect)
        case .postgres:
            return tables + [postgresFunction] + accountedBefore(dialect)
        }
    }

    /// The PostgreSQL function every table's triggers run (``prepareStatements(for:_:)``),
    /// made again with each table's triggers: another program that drops it (`CASCADE`
    /// takes the triggers with it) would leave the watch unable to give them back.
    static let postgresFunction = """
        CREATE OR REPLACE FUNCTION data_mediator_stamp() RETURNS trigger LANGUAGE plpgsql
        SET search_path FROM CURRENT AS $$
        BEGIN
            -- An import's own table, whose stamp it raises once itself; a table its
            -- triggers write counts as ever.
            IF current_setting('\(bulkSetting)', true) = TG_ARGV[0] THEN
                RETURN NULL;
            END IF;
            -- Logical replication's apply fires row triggers only: one count per
            -- transaction is enough there (no write of the service runs so). A
            -- partitioned table's row trigger fires on its partitions.
            IF TG_LEVEL = 'ROW' THEN
                \(countSQL(source: "TG_ARGV[0]", writer: "txid_current()", once: true));
                RETURN NULL;
            END IF;
            -- A table renamed away from the name it is served by keeps its
            -- triggers: its changes are not the served table's.
            IF TG_TABLE_NAME <> TG_ARGV[0] THEN
                RETURN NULL;
            END IF;
            -- A statement that changed no row changes nothing: the rows it changed
            -- are its transition table (none for TRUNCATE, which always counts).
            -- Nested, as a query naming a table the trigger lacks fails when planned.
            IF TG_OP IN ('INSERT', 'UPDATE') THEN
                IF NOT EXISTS (SELECT 1 FROM data_mediator_new) THEN
                    RETURN NULL;
                END IF;
            ELSIF TG_OP = 'DELETE' THEN
                IF NOT EXISTS (SELECT 1 FROM data_mediator_old) THEN
                    RETURN NULL;
                END IF;
            END IF;
            \(countSQL(source: "TG_ARGV[0]", writer: "txid_current()"));
            RETURN NULL;
        END
        $$
        """

    /// The statement by which a trigger counts one change of `source` by `writer` (SQL
    /// terms) in the log: a row of the writer's own, so no other writer waits for it.
    /// `once`: the writer's first change only (a row that is there stays as it is).
    private static func countSQL(source: String, writer: String, once: Bool = false) -> String {
        let log = ServiceTables.stampLog
        return """
            INSERT INTO \(log) (source, writer, statements) VALUES (\(source), \(writer), 1)
            ON CONFLICT (source, writer) DO \(once ? "NOTHING" : "UPDATE SET statements = \(log).statements + 1")
            """
    }

    /// The statements that carry a store made by an earlier release over: it kept, per
    /// table, the stamp the service accounted for in `data_mediator_outside_writes`; a
    /// table whose stamp had moved past it has changes the watch has not recorded yet,
    /// logged here as one change of no writer (0, which no transaction is), and the
    /// table goes (a new store makes it and drops it at once).
    private static func accountedBefore(_ dialect: SQLDialect) -> [String] {
        let types = SQLTypes(dialect)
        let accounted = "data_mediator_outside_writes"
        return [
            """
            CREATE TABLE IF NOT EXISTS \(accounted) (
                source \(types.text) PRIMARY KEY NOT NULL,
                stamp \(types.integer) NOT NULL DEFAULT 0
            )
            """,
            """
            INSERT INTO \(ServiceTables.stampLog) (source, writer, statements)
            SELECT stamps.source, 0, 1 FROM \(ServiceTables.stamps) AS stamps
            JOIN \(accounted) AS accounted ON accounted.source = stamps.source AND accounted.stamp <> stamps.stamp
            WHERE true ON CONFLICT DO NOTHING
            """,
            "DROP TABLE \(accounted)",
        ]
    }

    /// The PostgreSQL setting under which the triggers leave the stamps alone, for a
    /// transaction that raises its table's stamp once itself (an import): one update of
    /// one row per inserted record made each next one slower (PostgreSQL walks every
    /// version of a row that its own transaction wrote), 852 records/s at 10,000 and
    /// about 130/s at 200,000.
    static let bulkSetting = "data_mediator.bulk"

    /// Makes the rest of the transaction a bulk write of `table` (PostgreSQL: its
    /// statements leave its stamp alone until ``endBulk(of:_:)``, and only its: a trigger
    /// of it that writes another served table counts there; SQLite's row triggers cost one
    /// page-cache update each and stay).
    static func beginBulk(of table: String, _ session: any SQLSession) async throws {
        guard session.dialect == .postgres else { return }
        try await session.execute("SELECT set_config('\(bulkSetting)', ?, true)", [.string(table)])
    }

    /// Raises `table`'s stamp once for a bulk write's changes (PostgreSQL; SQLite's
    /// triggers counted them already), in a transaction that holds the version lock.
    static func endBulk(of table: String, _ session: any SQLSession) async throws {
        guard session.dialect == .postgres else { return }
        try await session.execute(raiseSQL(of: table), [])
    }

    /// The statement that raises `table`'s stamp by one, for changes no trigger counted,
    /// in a transaction that holds the version lock (every writer of the counter does).
    static func raiseSQL(of table: String) -> String {
        "UPDATE \(ServiceTables.stamps) SET stamp = stamp + 1 WHERE source = \(SQL.literal(table))"
    }

    /// Moves the changes of `source` logged by committed transactions into its counter (the
    /// stamp stays what it was), in a transaction that holds the version lock. On
    /// PostgreSQL one statement, so the rows it deletes are the ones it counts: a writer
    /// that commits meanwhile keeps its row for the next fold (SQLite has one writer).
    static func fold(_ source: String, _ session: any SQLSession) async throws {
        let log = ServiceTables.stampLog
        switch session.dialect {
        case .sqlite:
            let moved = try await session.integer(
                "SELECT COALESCE(SUM(statements), 0) FROM \(log) WHERE source = ?",
                [.string(source)]
            )
            guard moved > 0 else { return }
            try await session.execute("DELETE FROM \(log) WHERE source = ?", [.string(source)])
            try await session.execute(
                "UPDATE \(ServiceTables.stamps) SET stamp = stamp + ? WHERE source = ?",
                [.integer(moved), .string(source)]
            )
        case .postgres:
            try await session.execute(
                """
                WITH folded AS (DELETE FROM \(log) WHERE source = ? RETURNING statements)
                UPDATE \(ServiceTables.stamps) SET stamp = stamp + (SELECT SUM(statements) FROM folded)
                WHERE source = ? AND EXISTS (SELECT 1 FROM folded)
                """,
                [.string(source), .string(source)]
            )
        }
    }

    /// Moves the one change a write through the API made to `table` into the counter, its
    /// stamp read after the change (``currentSQL(of:)``): the write's row of the log, when
    /// that row counts one statement. A write that changed the table more (a trigger of the
    /// table that changed it again, a cascade to its own rows) leaves its row to the watch
    /// (``OutsideWrites``), and the lists reload. SQLite's transaction has no number of its
    /// own: its writes take the row of no writer (0), which holds only theirs, one writer at
    /// a time being all SQLite has. PostgreSQL's fold is ``ownFoldParts(of:)``.
    static func foldOwn(_ table: String, _ session: any SQLSession) async throws {
        let own = try await session.rows(
            "DELETE FROM \(ServiceTables.stampLog) WHERE source = ? AND writer = 0 AND statements = 1 RETURNING 1",
            [.string(table)]
        )
        guard !own.isEmpty else { return }
        try await session.execute(
            "UPDATE \(ServiceTables.stamps) SET stamp = stamp + 1 WHERE source = ?",
            [.string(table)]
        )
    }

    /// ``foldOwn(_:_:)`` on PostgreSQL, as data-modifying `WITH` parts of the write's
    /// statement that raises the store's version (one round trip fewer), with the values
    /// of their placeholders: the parts see the stamp as it was before them, so a read of
    /// the stamp in the same statement still counts the write's change.
    static func ownFoldParts(of table: String) -> [(sql: String, arguments: [JSONValue])] {
        [
            (
                "own_folded AS (DELETE FROM \(ServiceTables.stampLog) "
                    + "WHERE source = ? AND writer = txid_current() AND statements = 1 RETURNING 1)",
                [.string(table)]
            ),
            (
                "own_raised AS (UPDATE \(ServiceTables.stamps) SET stamp = stamp + 1 "
                    + "WHERE source = ? AND EXISTS (SELECT 1 FROM own_folded))",
                [.string(table)]
            ),
        ]
    }

    /// The statements that give `table` its stamp row and its triggers, when missing (on
    /// SQLite, the triggers of an earlier release, which raised the counter, go).
    public static func prepareStatements(for table: String, _ dialect: SQLDialect) -> [String] {
        let row = "INSERT INTO \(ServiceTables.stamps) (source) VALUES (\(SQL.literal(table))) ON CONFLICT DO NOTHING"
        switch dialect {
        case .sqlite:
            // SQLite has row triggers only; each costs one update of a row in the page
            // cache. A DELETE without WHERE still fires them (it is not truncated then).
            // Made anew each time: a trigger of the name may be on another table (one renamed
            // away from this name keeps it), and an earlier release's raised the counter.
            let triggers = ["INSERT", "UPDATE", "DELETE"].flatMap { event in
                [
                    "DROP TRIGGER IF EXISTS \(SQL.quote("data_mediator_stamp_\(event.lowercased())_\(table)"))",
                    "DROP TRIGGER IF EXISTS \(SQL.quote(sqliteTrigger(event, on: table)))",
                    """
                    CREATE TRIGGER \(SQL.quote(sqliteTrigger(event, on: table)))
                    AFTER \(event) ON \(SQL.quote(table)) BEGIN
                        \(countSQL(source: SQL.literal(table), writer: "0"));
                    END
                    """,
                ]
            }
            return [row] + triggers
        case .postgres:
            // One trigger per event: a trigger with a transition table has one event. The
            // first one, `data_mediator_stamp`, took every event before, and is replaced.
            let events = postgresStatementTriggers
            // Under `session_replication_role = replica` (logical replication's apply, which
            // fires row triggers only, and a session that sets it) a row trigger counts the
            // changes instead (`ENABLE REPLICA`: it fires then only); TRUNCATE's fires always.
            let statementTriggers = events.flatMap { name, event, referencing in
                [
                    """
                    CREATE OR REPLACE TRIGGER \(name) AFTER \(event) ON \(SQL.quote(table))
                    \(referencing)FOR EACH STATEMENT EXECUTE FUNCTION data_mediator_stamp(\(SQL.literal(table)))
                    """,
                    "ALTER TABLE \(SQL.quote(table)) ENABLE \(event == "TRUNCATE" ? "ALWAYS " : "")TRIGGER \(name)",
                ]
            }
            let replicaTrigger = [
                """
                CREATE OR REPLACE TRIGGER \(postgresReplicaTrigger) AFTER INSERT OR UPDATE OR DELETE
                ON \(SQL.quote(table)) FOR EACH ROW EXECUTE FUNCTION data_mediator_stamp(\(SQL.literal(table)))
                """,
                "ALTER TABLE \(SQL.quote(table)) ENABLE REPLICA TRIGGER \(postgresReplicaTrigger)",
            ]
            return [row, postgresFunction] + statementTriggers + replicaTrigger
        }
    }

    /// The name of `table`'s SQLite trigger of `event` (`INSERT`, `UPDATE`, `DELETE`).
    static func sqliteTrigger(_ event: String, on table: String) -> String {
        "\(sqliteTriggerPrefix)\(event.lowercased())_\(table)"
    }

    /// A table's PostgreSQL statement triggers: name, event and transition table.
    private static let postgresStatementTriggers = [
        ("data_mediator_stamp", "TRUNCATE", ""),
        ("data_mediator_stamp_insert", "INSERT", "REFERENCING NEW TABLE AS data_mediator_new "),
        ("data_mediator_stamp_update", "UPDATE", "REFERENCING NEW TABLE AS data_mediator_new "),
        ("data_mediator_stamp_delete", "DELETE", "REFERENCING OLD TABLE AS data_mediator_old "),
    ]

    /// A table's PostgreSQL row trigger, which fires in logical replication only.
    private static let postgresReplicaTrigger = "data_mediator_stamp_replica"

    /// The names of a table's PostgreSQL triggers (each table has its own).
    static let postgresTriggers = postgresStatementTriggers.map(\.0) + [postgresReplicaTrigger]

    /// What the names of the SQLite triggers start with, before their event.
    static let sqliteTriggerPrefix = "data_mediator_stamp_log_"

    /// The statement by which a write reads its table's stamp before it writes, with the
    /// store's version lock held (``StoreVersion/lock(_:reading:thenLocking:)``). On
    /// PostgreSQL it locks the table's counter, which only such writes change: a statement
    /// reads in the snapshot it started with, before it waited for the version lock, but
    /// a row it locks is read as the write before it left it (else a write queued behind
    /// others would read the counter as it was before they raised it, and look changed by
    /// more than its own step). The log's sum is still read in the older snapshot: other
    /// programs' rows logged, or rows folded, while the write waited are missed or counted
    /// twice. Writes carry outlines only when the stamp after is this one plus exactly one
    /// (``SQLItemWriter``), which such a miscount cannot pass unless its errors cancel, and
    /// then the stamp is exact: that check must stay as strict.
    static func beforeWriteSQL(of table: String, _ dialect: SQLDialect) -> String {
        let name = SQL.literal(table)
        let read = """
            SELECT stamp + (
                SELECT COALESCE(SUM(statements), 0) FROM \(ServiceTables.stampLog) WHERE source = \(name)
            ) FROM \(ServiceTables.stamps) WHERE source = \(name)
            """
        return dialect == .postgres ? read + " FOR UPDATE OF \(ServiceTables.stamps)" : read
    }

    /// The statement that reads the stamp of `tables` together: the sum of their counters
    /// and logged changes, which rises whenever one of them changes (each only rises; a
    /// fold moves changes from the log to the counter in one transaction).
    public static func currentSQL(of tables: [String]) -> String {
        let names = tables.map(SQL.literal).joined(separator: ", ")
        return """
            SELECT COALESCE(SUM(stamp), 0) + (
                SELECT COALESCE(SUM(statements), 0) FROM \(ServiceTables.stampLog) WHERE source IN (\(names))
            ) FROM \(ServiceTables.stamps) WHERE source IN (\(names))
            """
    }
}
