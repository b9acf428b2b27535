import DataMediator
import DataMediatorSQL
import Foundation
import GRDB
import Synchronization

/// A list's source checked against the database, as a start does it and as `check --store`
/// rehearses it.
extension SQLiteStore {
    /// Checks each list's source as ``provider(for:source:)`` does (a missing table made, a
    /// missing revision column added), in the given order, in one transaction that is
    /// rolled back: a config refused for one list leaves nothing made for the others, and a
    /// query list reads a table an earlier list makes. Returns what is wrong, a
    /// `StoreError` for each list refused (as ``provider(for:source:)`` and
    /// ``DataMediatorSQL/SQLListAssembly/writes(for:source:reader:tableWriters:)`` refuse).
    ///
    /// - Throws: when the store cannot be written.
    public func rehearse(_ lists: [(list: ListDefinition, source: StoreSource)]) throws -> [StoreError] {
        try database.writeWithoutTransaction { db in try Self.rehearse(lists, on: db) }
    }

    /// ``rehearse(_:)`` on `db`, a connection outside a transaction: for `check --store`,
    /// which opens the file without making the service's own tables in it.
    public static func rehearse(
        _ lists: [(list: ListDefinition, source: StoreSource)],
        on db: Database
    ) throws -> [StoreError] {
        // The connection remembers the tables it saw made; they are gone with the rollback.
        defer { db.clearSchemaCache() }
        var problems: [StoreError] = []
        // The columns the rehearsal added to each table (rolled back at its end).
        var added: [String: Set<String>] = [:]
        try db.inTransaction {
            for (list, source) in lists {
                let addedBefore = added
                do {
                    _ = try source.writeTarget(of: list)
                    let schema = TableSchema(list: list, source: source, dialect: .sqlite)
                    do {
                        try db.inSavepoint {
                            _ = try Self.checkSource(of: list, source, schema, db, added: &added)
                            return .commit
                        }
                    } catch {
                        added = addedBefore
                        throw error
                    }
                } catch let error as StoreError {
                    problems.append(error)
                } catch let error as DatabaseError {
                    problems.append(StoreError(list: list.name, "\(error)"))
                }
            }
            return .rollback
        }
        return problems
    }

    /// What a list's source holds that its pages need (its NOT NULL columns, whether its
    /// id column has integer affinity, its collated columns, its columns of NUMERIC
    /// affinity), checked against the list's
    /// declaration; a missing table is made from it. `added` holds the columns this
    /// transaction added to each table (a revision column), which a refusal does not name
    /// among those the table has.
    static func checkSource(
        of list: ListDefinition,
        _ source: StoreSource,
        _ schema: TableSchema,
        _ db: Database,
        added: inout [String: Set<String>]
    ) throws -> (notNull: Set<String>, idIsIntegerColumn: Bool, collated: Set<String>, numeric: Set<String>) {
        let available: [String]
        var kinds: [String: (kind: ColumnKind, type: String)] = [:]
        var notNull: Set<String> = []
        var idIsIntegerColumn = false
        var collated: Set<String> = []
        var numeric: Set<String> = []
        var addedHere: Set<String> = []
        try SQLiteCatalog.checkSpelling(of: source.allVersionTables, list, db)
        try schema.checkTables { try SQLiteCatalog.relation($0, db) }
        switch source.kind {
        case .table(let table):
            if try !db.tableExists(table) {
                try db.execute(sql: schema.createTable(table))
            }
            if let revision = list.revisionField, let statement = schema.addRevisionColumn(to: table),
                try !db.columns(in: table).contains(where: { $0.name == revision })
            {
                try db.execute(sql: statement)
                added[table, default: []].insert(revision)
            }
            addedHere = added[table] ?? []
            let columns = try db.columns(in: table)
            available = columns.map(\.name)
            notNull = Set(columns.filter(\.isNotNull).map(\.name))
            // SQLite's rule for a column's affinity: a declared type containing INT.
            idIsIntegerColumn = columns.contains {
                $0.name == list.idField && $0.type.uppercased().contains("INT")
            }
            if let primaryKey = try? db.primaryKey(table), primaryKey.columns == [list.idField] {
                notNull.insert(list.idField)
            }
            try SQLiteCatalog.checkUniqueID(list, table: table, db)
            kinds = SQLiteCatalog.kinds(of: columns, in: table, db)
            collated = try SQLiteCatalog.collatedColumns(of: table, among: available, db)
            numeric = SQLiteCatalog.numericColumns(of: columns, in: table, db)
        case .query(let query):
            try schema.checkQueryPlaceholders()
            let statement: Statement
            do {
                statement = try db.makeStatement(sql: "SELECT * FROM (\(query)\n) LIMIT 0")
            } catch let error as DatabaseError {
                // SQLite's words without the statement they ran: that is the query inside
                // the service's `SELECT * FROM (...) LIMIT 0`, over two lines.
                throw StoreError(
                    list: list.name,
                    "its query does not run: SQLite error \(error.resultCode.rawValue): \(error.message ?? "\(error)")"
                )
            }
            // SQLite's other placeholders (`?1`, `:name`, `@name`, `$name`) too.
            guard (try? statement.validateArguments([])) != nil else {
                throw TableSchema.placeholderError(list: list.name)
            }
            guard statement.isReadonly else {
                throw StoreError(list: list.name, "its query must only read (a SELECT)")
            }
            available = statement.columnNames
        }
        try schema.checkColumnsAndTypes(available, kinds: kinds, added: addedHere)
        return (notNull, idIsIntegerColumn, collated, numeric)
    }
}
