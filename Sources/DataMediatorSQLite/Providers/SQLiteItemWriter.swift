import DataMediator
import GRDB

/// Writes a table list's items, each write one transaction on the pool's writer: the row,
/// its revision and the table's version change together, and the call returns after the
/// commit (WAL), so an answered write is durable.
public struct SQLiteItemWriter: ItemWriter {
    private let database: DatabasePool
    private let list: String
    private let table: String
    private let idField: String
    private let idType: FieldType
    private let revisionField: String
    /// Every writable field, in a fixed order (the id and revision excluded).
    private let fields: [String]
    private let fieldTypes: [String: FieldType]
    /// The columns a read returns, and their layout.
    private let columns: [String]
    private let layout: ItemLayout

    init(
        database: DatabasePool,
        list: String,
        table: String,
        idField: String,
        revisionField: String,
        fieldTypes: [String: FieldType],
        columns: [String]
    ) {
        self.database = database
        self.list = list
        self.table = table
        self.idField = idField
        self.idType = fieldTypes[idField] ?? .string
        self.revisionField = revisionField
        self.fields = fieldTypes.keys.filter { $0 != idField && $0 != revisionField }.sorted()
        self.fieldTypes = fieldTypes
        self.columns = columns
        self.layout = ItemLayout(columns)
    }

    /// Inserts a row; SQLite picks an integer id, or a random UUID is used for text ids.
    public func insert(id: String?, fields values: [String: JSONValue]) async throws -> WriteResult {
        let key = try id.map { (id) throws(DataMediatorError) in try storedID(id) }
        return try await database.write { db in
            if let key, try exists(key, in: db) {
                throw DataMediatorError(.conflict, "An item with id '\(id ?? "")' exists; PUT replaces it.")
            }
            let item = try insertRow(key: key, values: values, in: db)
            return WriteResult(item: item, version: try bumpVersion(db), created: true)
        }
    }

    /// Replaces the row with `id` (its revision goes up by one) or inserts it.
    public func replace(id: String, fields values: [String: JSONValue]) async throws -> WriteResult {
        let key = try storedID(id)
        return try await database.write { db in
            guard try exists(key, in: db) else {
                let item = try insertRow(key: key, values: values, in: db)
                return WriteResult(item: item, version: try bumpVersion(db), created: true)
            }
            let item = try updateRow(key: key, values: values, in: db)
            return WriteResult(item: item, version: try bumpVersion(db), created: false)
        }
    }

    /// Merges the patch into the row's fields, checks them, and stores them.
    public func patch(
        id: String,
        with patch: JSONValue,
        check: @Sendable ([String: JSONValue]) throws -> Void
    ) async throws -> WriteResult {
        let key = try storedID(id, missing: true)
        return try await database.write { db in
            let select =
                "SELECT \(fields.map(SQL.quote).joined(separator: ", ")) FROM \(SQL.quote(table)) WHERE \(SQL.quote(idField)) = ?"
            var current: [String: JSONValue] = [:]
            if fields.isEmpty {
                guard try exists(key, in: db) else { throw unknown(id) }
            } else {
                guard let row = try Row.fetchOne(db, sql: select, arguments: [key]) else { throw unknown(id) }
                for (index, field) in fields.enumerated() {
                    let stored = JSONValue(row[index] as DatabaseValue)
                    let value = fieldTypes[field].map { $0.present(stored) } ?? stored
                    if value != .null { current[field] = value }
                }
            }
            let merged = JSONValue.object(current).merging(patch).objectValue ?? [:]
            try check(merged)
            let item = try updateRow(key: key, values: merged, in: db)
            return WriteResult(item: item, version: try bumpVersion(db), created: false)
        }
    }

    /// Deletes the row with `id`.
    public func delete(id: String) async throws -> Int64 {
        let key = try storedID(id, missing: true)
        return try await database.write { db in
            try db.execute(sql: "DELETE FROM \(SQL.quote(table)) WHERE \(SQL.quote(idField)) = ?", arguments: [key])
            guard db.changesCount > 0 else { throw unknown(id) }
            return try bumpVersion(db)
        }
    }

    // MARK: - Rows

    private var returning: String { " RETURNING " + columns.map(SQL.quote).joined(separator: ", ") }

    private func insertRow(key: DatabaseValue?, values: [String: JSONValue], in db: Database) throws -> Item {
        var names = fields + [revisionField]
        var arguments = fields.map { stored(values[$0] ?? .null, as: fieldTypes[$0]) } + [1.databaseValue]
        if let key {
            names.insert(idField, at: 0)
            arguments.insert(key, at: 0)
        } else if idType != .integer {
            names.insert(idField, at: 0)
            arguments.insert(UUIDText.random().databaseValue, at: 0)
        }
        let marks = Array(repeating: "?", count: names.count).joined(separator: ", ")
        let sql =
            "INSERT INTO \(SQL.quote(table)) (\(names.map(SQL.quote).joined(separator: ", "))) VALUES (\(marks))"
            + returning
        return try readItem(db, sql: sql, arguments: arguments)
    }

    private func updateRow(key: DatabaseValue, values: [String: JSONValue], in db: Database) throws -> Item {
        let assignments =
            fields.map { "\(SQL.quote($0)) = ?" } + [
                "\(SQL.quote(revisionField)) = COALESCE(\(SQL.quote(revisionField)), 0) + 1"
            ]
        let arguments = fields.map { stored(values[$0] ?? .null, as: fieldTypes[$0]) } + [key]
        let sql =
            "UPDATE \(SQL.quote(table)) SET \(assignments.joined(separator: ", ")) WHERE \(SQL.quote(idField)) = ?"
            + returning
        return try readItem(db, sql: sql, arguments: arguments)
    }

    private func readItem(_ db: Database, sql: String, arguments: [DatabaseValue]) throws -> Item {
        guard
            let row = try Row.fetchOne(
                db,
                sql: sql,
                arguments: StatementArguments(arguments.map { $0 as (any DatabaseValueConvertible)? })
            )
        else {
            throw DataMediatorError(.unavailable, "The write stored no row.")
        }
        let values = columns.indices.map { index in
            let stored = JSONValue(row[index] as DatabaseValue)
            return fieldTypes[columns[index]].map { $0.present(stored) } ?? stored
        }
        return Item(layout: layout, values: values)
    }

    private func exists(_ key: DatabaseValue, in db: Database) throws -> Bool {
        try Bool.fetchOne(
            db,
            sql: "SELECT 1 FROM \(SQL.quote(table)) WHERE \(SQL.quote(idField)) = ?",
            arguments: [key]
        ) ?? false
    }

    private func bumpVersion(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(
            db,
            sql: "UPDATE \(SQLiteStore.versionTable) SET version = version + 1 WHERE source = ? RETURNING version",
            arguments: [table]
        ) ?? 0
    }

    /// A value as the column stores it: JSON fields as JSON text, the rest as they are.
    private func stored(_ value: JSONValue, as type: FieldType?) -> DatabaseValue {
        if type == .json, value != .null {
            var writer = JSONWriter()
            writer.write(value)
            return writer.string.databaseValue
        }
        return value.databaseValue
    }

    /// The id as the column stores it.
    ///
    /// - Throws: `invalidItem` (or `unknownItem` when `missing`, since no such item can
    ///   exist) for an id that an integer id column cannot hold.
    private func storedID(_ id: String, missing: Bool = false) throws(DataMediatorError) -> DatabaseValue {
        guard idType == .integer else { return id.databaseValue }
        guard let whole = Int64(id), String(whole) == id else {
            if missing { throw unknown(id) }
            throw DataMediatorError(
                .invalidItem,
                "Ids of this list are whole numbers; '\(id)' is not one.",
                fieldProblems: [FieldProblem(field: "id", detail: "must be a whole number")]
            )
        }
        return whole.databaseValue
    }

    private func unknown(_ id: String) -> DataMediatorError {
        DataMediatorError(.unknownItem, "There is no item '\(id)' in list '\(list)'.")
    }
}

/// Random ids for text id columns.
enum UUIDText {
    static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let hex = bytes.map { byte in (byte < 16 ? "0" : "") + String(byte, radix: 16) }.joined()
        return hex
    }
}
