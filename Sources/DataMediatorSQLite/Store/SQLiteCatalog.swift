import DataMediator
import DataMediatorSQL
import GRDB
import GRDBSQLite

/// What the store reads of a table another program made, beyond what GRDB tells: the
/// collation each column declares, and whether the list's id is unique in it.
enum SQLiteCatalog {
    /// The columns of `table` among `columns` that declare a collation other than SQLite's
    /// bytewise `BINARY` (`COLLATE NOCASE`, `RTRIM`): compared as they are, they order and
    /// group text otherwise than the service does.
    static func collatedColumns(of table: String, among columns: [String], _ db: Database) throws -> Set<String> {
        var collated: Set<String> = []
        for column in columns {
            var collation: UnsafePointer<CChar>?
            let code = sqlite3_table_column_metadata(
                db.sqliteConnection,
                "main",
                table,
                column,
                nil,
                &collation,
                nil,
                nil,
                nil
            )
            guard code == SQLITE_OK, let collation else { continue }
            if String(cString: collation).uppercased() != "BINARY" { collated.insert(column) }
        }
        return collated
    }

    /// What the store holds under `name` (``TableSchema/Relation``): names beginning
    /// `sqlite_` are SQLite's own (it refuses to make one, and keeps its catalog so), and a
    /// view, an index, a trigger or a virtual table takes no triggers or indexes.
    static func relation(_ name: String, _ db: Database) throws -> TableSchema.Relation {
        if name.lowercased().hasPrefix("sqlite_") {
            return .other("one of SQLite's own tables (its names begin sqlite_)")
        }
        let row = try Row.fetchOne(
            db,
            sql: "SELECT type, sql FROM sqlite_master WHERE name = ? COLLATE NOCASE",
            arguments: [name]
        )
        guard let row, let type: String = row["type"] else { return .missing }
        let definition: String = row["sql"] ?? ""
        if type == "table" {
            return definition.uppercased().hasPrefix("CREATE VIRTUAL TABLE") ? .other("a virtual table") : .table
        }
        return .other(type == "index" ? "an index" : "a \(type)")
    }

    /// Refuses a table named otherwise than the store spells it (`Todos` for `todos`): SQLite's
    /// names ignore case, but the service's counters and triggers go by the name as written,
    /// so a second spelling would get no triggers (theirs exist already) and its lists would
    /// never see a change.
    ///
    /// - Throws: `StoreError` naming both spellings.
    static func checkSpelling(of tables: [String], _ list: ListDefinition, _ db: Database) throws {
        for table in tables {
            guard
                let stored = try String.fetchOne(
                    db,
                    sql: "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name = ? COLLATE NOCASE",
                    arguments: [table]
                ), stored != table
            else { continue }
            throw StoreError(
                list: list.name,
                "table '\(table)' is spelt '\(stored)' in the store (SQLite's names ignore case, the service's "
                    + "counters do not): write '\(stored)'"
            )
        }
    }

    /// Refuses a table whose id column is not unique (neither its primary key nor a unique
    /// index on it alone): its items would repeat in every walk, and an id would name
    /// several. A view is not checked: it has no keys to tell.
    ///
    /// - Throws: `StoreError` naming the column and the way out.
    static func checkUniqueID(_ list: ListDefinition, table: String, _ db: Database) throws {
        guard try db.tableExists(table), try !db.table(table, hasUniqueKey: [list.idField]) else { return }
        throw StoreError(
            list: list.name,
            "its id column '\(list.idField)' is not unique in table '\(table)' (neither its primary key nor "
                + "a unique index on it alone): declare a unique column as the id, or add "
                + "CREATE UNIQUE INDEX \(table)_\(list.idField) ON \(table) (\(list.idField))"
        )
    }

    /// What `schema`'s source holds now, for ``SourceCheck``: a table's columns and their
    /// kinds by affinity, as start-up reads them, or a query's columns; nil when the table
    /// is gone or the query no longer runs.
    static func columns(of schema: TableSchema, _ db: Database) throws -> SourceCheck.Columns? {
        switch schema.source.kind {
        case .table(let table):
            guard try db.tableExists(table) else { return nil }
            let columns = try db.columns(in: table)
            return SourceCheck.Columns(
                names: columns.map(\.name),
                kinds: kinds(of: columns, in: table, db)
            )
        case .query(let query):
            do {
                return SourceCheck.Columns(
                    names: try db.makeStatement(sql: "SELECT * FROM (\(query)\n) LIMIT 0").columnNames
                )
            } catch let error as DatabaseError where error.isRefusedStatement {
                return nil
            }
        }
    }

    /// Each column of `table` with its kind by its affinity, and its declared type as the
    /// errors name it. A `STRICT` table's `ANY` column keeps every value as given (no
    /// affinity: sqlite.org/stricttables.html); elsewhere `ANY` is a NUMERIC type.
    static func kinds(
        of columns: [ColumnInfo],
        in table: String,
        _ db: Database
    ) -> [String: (kind: ColumnKind, type: String)] {
        let strict = isStrict(table, db)
        return Dictionary(
            columns.map { column in
                let kind =
                    strict && column.type.uppercased() == "ANY"
                    ? ColumnKind.any : ColumnKind(sqliteType: column.type)
                return (column.name, (kind, column.type.isEmpty ? "untyped" : column.type))
            }
        ) { first, _ in first }
    }

    /// The columns of `table` among `columns` whose affinity is NUMERIC (a `DATETIME`
    /// column, say), which keep text that reads as a number as that number (``KeptText``);
    /// a `STRICT` table's `ANY` column keeps it as given.
    static func numericColumns(of columns: [ColumnInfo], in table: String, _ db: Database) -> Set<String> {
        let strict = isStrict(table, db)
        return Set(
            columns.filter {
                ColumnKind.sqliteAffinity($0.type) == .numeric && !(strict && $0.type.uppercased() == "ANY")
            }
            .map(\.name)
        )
    }

    /// Whether `table` is `STRICT`; `pragma_table_list` is SQLite 3.37's, as STRICT tables
    /// are: none before it.
    private static func isStrict(_ table: String, _ db: Database) -> Bool {
        let strict = try? Bool.fetchOne(
            db,
            sql: "SELECT strict FROM pragma_table_list WHERE schema = 'main' AND name = ?",
            arguments: [table]
        )
        return strict == true
    }
}
