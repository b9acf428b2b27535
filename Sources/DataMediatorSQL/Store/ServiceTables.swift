import Crypto
import DataMediator

/// The names and definitions of the tables the service keeps in a SQL store beside the
/// lists' own tables: versions, change log, history floors, idempotency keys, the tables'
/// stamps and their logged steps (``StampSteps``), the ids given (``IssuedIDs``), the
/// changes other programs made (``OutsideWrites``) and the views replicas log
/// (``LoggedViews``).
public enum ServiceTables {
    /// Per source table, the store's version after its last write through the API
    /// (`changed_at`); in SQLite also the table's own change counter (`version`), whose sum
    /// is the store's version.
    public static let versions = "data_mediator_versions"
    /// PostgreSQL's one-row table of the store's version.
    public static let store = "data_mediator_store"
    /// One row per write and view: what the write did to the view (its items are
    /// ``ChangeItems``', once per write and list).
    public static let changes = "data_mediator_changes"
    /// Per list, the version from which its change log is complete (its floor).
    public static let history = "data_mediator_history"
    /// The answers to `POST`s with an `Idempotency-Key`.
    public static let idempotency = "data_mediator_idempotency"
    /// Per source table, a counter that every change to the table raises, whoever makes it
    /// (``TableStamps``): what is computed from the table's rows is kept until it moves.
    public static let stamps = "data_mediator_stamps"
    /// Per source table and writing transaction, the changes it made that are not in the
    /// table's row of ``stamps`` yet (``TableStamps``).
    public static let stampLog = "data_mediator_stamp_log"
    /// The PostgreSQL channel every write notifies (with its version) on commit.
    public static let channel = "data_mediator_changes"

    /// The indexes and the added columns (table, column) ``schema(_:)`` makes where they
    /// are missing, read from its statements: a start whose mark is current looks for each
    /// too, so that one dropped since is made again (review 108 #2: the mark said current
    /// while `old_item` was gone, and every write failed until the statements ran).
    public static func schemaParts(_ dialect: SQLDialect) -> (indexes: [String], columns: [(String, String)]) {
        var indexes: [String] = []
        var columns: [(String, String)] = []
        let index = /CREATE (?:UNIQUE )?INDEX IF NOT EXISTS (\w+)/
        let column = /ALTER TABLE (\w+) ADD COLUMN IF NOT EXISTS (\w+)/
        for statement in schema(dialect) {
            for match in statement.matches(of: index) { indexes.append(String(match.1)) }
            for match in statement.matches(of: column) { columns.append((String(match.1), String(match.2))) }
        }
        return (indexes, columns)
    }

    /// What made the service's tables: a digest of ``schema(_:)``'s statements, which a
    /// PostgreSQL store keeps as the comment of ``store``, so that a start (or an import)
    /// whose tables the same statements made runs none of them. `ALTER TABLE ... ADD
    /// COLUMN IF NOT EXISTS` takes its table's strongest lock before it looks: behind any
    /// long transaction that had read the change log (a backup), it waited, and every
    /// write of every replica waited behind it (review 106 #1).
    public static func schemaMark(_ dialect: SQLDialect) -> String {
        let digest = SHA256.hash(data: Array(schema(dialect).joined(separator: "\n").utf8))
        return "data-mediator schema " + Hex.string(Array(digest.prefix(12)))
    }

    /// The statement that creates the service's table `name` when missing, with `columns`
    /// (each a name and its type in `dialect`'s ``SQLTypes``, all `NOT NULL`) and the primary
    /// key `key`; on SQLite its rows are kept in the key's order (no row ids).
    static func keyedTable(
        _ name: String,
        _ columns: [(name: String, type: KeyPath<SQLTypes, String>)],
        key: [String],
        _ dialect: SQLDialect
    ) -> String {
        let types = SQLTypes(dialect)
        let lines = columns.map { "    \($0.name) \(types[keyPath: $0.type]) NOT NULL" }
        return "CREATE TABLE IF NOT EXISTS \(name) (\n" + lines.joined(separator: ",\n")
            + ",\n    PRIMARY KEY (\(key.joined(separator: ", ")))\n)" + (dialect == .sqlite ? " WITHOUT ROWID" : "")
    }

    /// Whether `table` is one of the service's own tables (each is named `data_mediator_`
    /// and more): a constraint of one that refuses a write is the service's fault, never
    /// the item's (``ConstraintRefusal`` is for the list's table alone).
    public static func holds(_ table: String) -> Bool {
        table.hasPrefix("data_mediator_")
    }

    /// The names of the tables ``schema(_:)`` leaves in `dialect` (made, and not dropped
    /// again as an earlier release's are), read from its statements so that a table added
    /// there is named here too, for readiness: reads and writes need every one
    /// (``SourceCheck``).
    public static func names(_ dialect: SQLDialect) -> [String] {
        func named(after start: String) -> [String] {
            schema(dialect).compactMap { statement in
                guard let range = statement.firstRange(of: start) else { return nil }
                return String(statement[range.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "_" })
            }
        }
        let dropped = Set(named(after: "DROP TABLE "))
        return named(after: "CREATE TABLE IF NOT EXISTS ").filter { !dropped.contains($0) }
    }

    /// The functions ``schema(_:)`` makes when missing (PostgreSQL's, by name and argument
    /// types: `data_mediator_time_text(date)`), read from its statements' look for them
    /// (`to_regprocedure`), for readiness: reads and writes of some lists need them.
    public static func functions(_ dialect: SQLDialect) -> [String] {
        schema(dialect).compactMap { statement in
            guard let range = statement.firstRange(of: "to_regprocedure('") else { return nil }
            return String(statement[range.upperBound...].prefix { $0 != "'" })
        }
    }

    /// The statements that create the service's tables when missing, in order (on
    /// PostgreSQL with the functions that show time and enum columns and check written
    /// times, ``TimeText`` and ``EnumText``).
    public static func schema(_ dialect: SQLDialect) -> [String] {
        let types = SQLTypes(dialect)
        let versionTables: [String]
        switch dialect {
        case .sqlite:
            versionTables = [
                """
                CREATE TABLE IF NOT EXISTS \(versions) (
                    source TEXT PRIMARY KEY NOT NULL,
                    version INTEGER NOT NULL DEFAULT 0,
                    changed_at INTEGER NOT NULL DEFAULT 0
                )
                """
            ]
        case .postgres:
            versionTables = [
                """
                CREATE TABLE IF NOT EXISTS \(store) (
                    id boolean PRIMARY KEY DEFAULT TRUE CHECK (id),
                    version bigint NOT NULL DEFAULT 0
                )
                """,
                "INSERT INTO \(store) (id, version) VALUES (TRUE, 0) ON CONFLICT DO NOTHING",
                """
                CREATE TABLE IF NOT EXISTS \(versions) (
                    source text PRIMARY KEY,
                    changed_at bigint NOT NULL DEFAULT 0
                )
                """,
            ]
        }
        // SQLite keeps the change log's rows in its primary key's order (no row ids).
        let clustered = dialect == .sqlite ? " WITHOUT ROWID" : ""
        return versionTables + [
            """
            CREATE TABLE IF NOT EXISTS \(changes) (
                list \(types.text) NOT NULL,
                view \(types.text) NOT NULL,
                version \(types.integer) NOT NULL,
                op \(types.text) NOT NULL,
                item_id \(types.text) NOT NULL,
                item \(types.text),
                section \(types.text),
                section_after \(types.text),
                after \(types.text),
                old_item \(types.text),
                PRIMARY KEY (list, view, version)
            )\(clustered)
            """,
            // The trim of a list's oldest changes (``SQLChangeLog/trimSQL``) after each write
            // once its history is full: without it, a read of every change the list keeps.
            "CREATE INDEX IF NOT EXISTS data_mediator_changes_age ON \(changes) (list, version)",
            """
            CREATE TABLE IF NOT EXISTS \(history) (
                list \(types.text) PRIMARY KEY NOT NULL,
                floor \(types.integer) NOT NULL
            )
            """,
            """
            CREATE TABLE IF NOT EXISTS \(idempotency) (
                list \(types.text) NOT NULL,
                key \(types.text) NOT NULL,
                fingerprint \(types.text) NOT NULL,
                item \(types.text) NOT NULL,
                version \(types.integer) NOT NULL,
                created_at \(types.real) NOT NULL,
                PRIMARY KEY (list, key)
            )
            """,
            "CREATE INDEX IF NOT EXISTS data_mediator_idempotency_age ON \(idempotency) (created_at)",
        ] + oldItemColumn(dialect) + ChangeItems.schema(dialect) + TableStamps.schema(dialect)
            + StampSteps.schema(dialect)
            + OutsideWrites.schema(dialect) + LoggedViews.schema(dialect)
            + IssuedIDs.schema(dialect)
            + (dialect == .postgres ? TimeText.functions + TimeText.writtenFunctions + EnumText.functions : [])
    }

    /// Adds the change log's `old_item` to a PostgreSQL store made before it (SQLite's
    /// store checks its columns itself: it has no `ADD COLUMN IF NOT EXISTS`).
    private static func oldItemColumn(_ dialect: SQLDialect) -> [String] {
        dialect == .postgres ? ["ALTER TABLE \(changes) ADD COLUMN IF NOT EXISTS old_item text"] : []
    }
}

/// The column types of a dialect, for the service's tables and for list tables created
/// from their declared fields.
public struct SQLTypes: Sendable {
    /// Text of the service's own tables.
    public let text: String
    /// 64-bit whole numbers.
    public let integer: String
    /// Floating-point numbers.
    public let real: String
    private let dialect: SQLDialect

    /// The types of `dialect`.
    public init(_ dialect: SQLDialect) {
        self.dialect = dialect
        switch dialect {
        case .sqlite: (text, integer, real) = ("TEXT", "INTEGER", "REAL")
        case .postgres: (text, integer, real) = ("text", "bigint", "double precision")
        }
    }

    /// The column type of a declared field. PostgreSQL text is in the `"C"` collation, so
    /// the database orders it as the service does (bytewise, as SQLite does).
    public func column(for type: FieldType?) -> String {
        switch (dialect, type) {
        case (_, .integer): return integer
        case (.sqlite, .boolean): return integer
        case (.postgres, .boolean): return "boolean"
        case (_, .number): return real
        case (.sqlite, .string), (.sqlite, .json), (.sqlite, nil): return text
        case (.postgres, .string), (.postgres, .json), (.postgres, nil): return "text COLLATE \"C\""
        }
    }
}
