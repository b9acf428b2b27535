import DataMediator

/// A counter per source table that every change to the table raises, in the changing
/// transaction, whoever makes it: the service's writes, an import, or another program
/// writing to the store. Triggers keep it (row triggers on SQLite, statement triggers on
/// PostgreSQL that count a statement only when it changed rows), so what the service computes from a table's rows (section counts, the
/// marks that place an item, a query list's result) is kept while the stamps of the tables
/// it reads stay put, and computed again once after they move.
///
/// The store's version does not serve here: rows other programs write do not raise it.
public enum TableStamps {
    /// The service's table and, on PostgreSQL, the function every table's trigger calls.
    static func schema(_ dialect: SQLDialect) -> [String] {
        let types = SQLTypes(dialect)
        let table = """
            CREATE TABLE IF NOT EXISTS \(ServiceTables.stamps) (
                source \(types.text) PRIMARY KEY NOT NULL,
                stamp \(types.integer) NOT NULL DEFAULT 0
            )
            """
        switch dialect {
        case .sqlite:
            return [table]
        case .postgres:
            return [
                table,
                """
                CREATE OR REPLACE FUNCTION data_mediator_stamp() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    IF current_setting('\(bulkSetting)', true) = 'on' THEN
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
                    UPDATE \(ServiceTables.stamps) SET stamp = stamp + 1 WHERE source = TG_ARGV[0];
                    RETURN NULL;
                END
                $$
                """,
            ]
        }
    }

    /// The PostgreSQL setting under which the triggers leave the stamps alone, for a
    /// transaction that raises its table's stamp once itself (an import): one `UPDATE` of
    /// one row per inserted record made each next one slower (PostgreSQL walks every
    /// version of a row that its own transaction wrote), 852 records/s at 10,000 and
    /// about 130/s at 200,000.
    static let bulkSetting = "data_mediator.bulk"

    /// Makes the rest of the transaction a bulk write of `table` (PostgreSQL: its
    /// statements leave the stamp alone until ``endBulk(of:_:)``; SQLite's row triggers
    /// cost one page-cache update each and stay).
    static func beginBulk(_ session: any SQLSession) async throws {
        guard session.dialect == .postgres else { return }
        try await session.execute("SET LOCAL \(bulkSetting) = 'on'", [])
    }

    /// Raises `table`'s stamp once for a bulk write's changes (PostgreSQL; SQLite's
    /// triggers raised it already).
    static func endBulk(of table: String, _ session: any SQLSession) async throws {
        guard session.dialect == .postgres else { return }
        try await session.execute(raiseSQL(of: table), [])
    }

    /// The statement that raises `table`'s stamp by one, for changes no trigger counted.
    static func raiseSQL(of table: String) -> String {
        "UPDATE \(ServiceTables.stamps) SET stamp = stamp + 1 WHERE source = \(SQL.literal(table))"
    }

    /// The statements that give `table` its stamp row, its row of accounted changes
    /// (``OutsideWrites``) and its triggers, when missing.
    public static func prepareStatements(for table: String, _ dialect: SQLDialect) -> [String] {
        let rows = [
            "INSERT INTO \(ServiceTables.stamps) (source) VALUES (\(SQL.literal(table))) ON CONFLICT DO NOTHING",
            OutsideWrites.prepareSQL(for: table),
        ]
        switch dialect {
        case .sqlite:
            // SQLite has row triggers only; each costs one update of a row in the page
            // cache. A DELETE without WHERE still fires them (it is not truncated then).
            let triggers = ["INSERT", "UPDATE", "DELETE"].map { event in
                """
                CREATE TRIGGER IF NOT EXISTS \(SQL.quote("data_mediator_stamp_\(event.lowercased())_\(table)"))
                AFTER \(event) ON \(SQL.quote(table)) BEGIN
                    UPDATE \(ServiceTables.stamps) SET stamp = stamp + 1 WHERE source = \(SQL.literal(table));
                END
                """
            }
            return rows + triggers
        case .postgres:
            // One trigger per event: a trigger with a transition table has one event. The
            // first one, `data_mediator_stamp`, took every event before, and is replaced.
            let events = [
                ("data_mediator_stamp", "TRUNCATE", ""),
                ("data_mediator_stamp_insert", "INSERT", "REFERENCING NEW TABLE AS data_mediator_new "),
                ("data_mediator_stamp_update", "UPDATE", "REFERENCING NEW TABLE AS data_mediator_new "),
                ("data_mediator_stamp_delete", "DELETE", "REFERENCING OLD TABLE AS data_mediator_old "),
            ]
            // `ENABLE ALWAYS`: they fire under `session_replication_role = replica` too, as
            // logical replication applies another database's writes to the table.
            return rows
                + events.flatMap { name, event, referencing in
                    [
                        """
                        CREATE OR REPLACE TRIGGER \(name) AFTER \(event) ON \(SQL.quote(table))
                        \(referencing)FOR EACH STATEMENT EXECUTE FUNCTION data_mediator_stamp(\(SQL.literal(table)))
                        """,
                        "ALTER TABLE \(SQL.quote(table)) ENABLE ALWAYS TRIGGER \(name)",
                    ]
                }
        }
    }

    /// The statement that reads the stamp of `tables` together: their sum, which rises
    /// whenever one of them changes (each only rises).
    public static func currentSQL(of tables: [String]) -> String {
        let names = tables.map(SQL.literal).joined(separator: ", ")
        return "SELECT COALESCE(SUM(stamp), 0) FROM \(ServiceTables.stamps) WHERE source IN (\(names))"
    }

    /// The statement that reads the stamp of one `table`. With `locking`, PostgreSQL locks
    /// its row until the transaction ends, so no other writer of the table moves the stamp
    /// between this read and the transaction's own change (a SQLite write transaction
    /// holds the whole store already).
    static func readSQL(of table: String, locking: Bool, _ dialect: SQLDialect) -> String {
        let read = "SELECT stamp FROM \(ServiceTables.stamps) WHERE source = \(SQL.literal(table))"
        return locking && dialect == .postgres ? read + " FOR UPDATE" : read
    }
}
