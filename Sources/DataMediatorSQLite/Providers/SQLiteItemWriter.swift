import DataMediator
import DataMediatorSQL
import Foundation
import GRDB
import Synchronization

/// Writes a table list's items, each write one transaction on the pool's writer: the row,
/// its revision and the table's version change together, and the call returns after the
/// commit (WAL), so an answered write is durable.
public struct SQLiteItemWriter: ItemWriter {
    /// The table of idempotency keys.
    static let idempotencyTable = "data_mediator_idempotency"

    private let database: DatabasePool
    private let list: String
    private let table: String
    private let idField: String
    private let idType: FieldType
    private let revisionField: String
    /// Every writable field, in a fixed order (the id and revision excluded).
    private let fields: [String]
    private let fieldTypes: [String: FieldType]
    /// The columns a read returns (the list's and every writable field), and their layout.
    private let columns: [String]
    private let layout: ItemLayout
    /// The SQL that does not change from write to write, built once.
    private let selectByID: String
    private let returning: String
    private let updateByID: String
    /// The insert with the id given (`?` first) and without it (SQLite picks an integer id).
    private let insertWithID: String
    private let insertWithoutID: String
    /// Deletes expired idempotency keys at most once a minute.
    private let purge = Throttle(every: .seconds(60))
    /// Reads the views around a written item, and the list's version.
    private let provider: SQLiteDataProvider
    private let recorder: ChangeRecorder
    private let changeLog: SQLiteChangeLog

    init(
        database: DatabasePool,
        list: ListDefinition,
        table: String,
        revisionField: String,
        fieldTypes: [String: FieldType],
        columns: [String],
        provider: SQLiteDataProvider,
        changeLog: SQLiteChangeLog
    ) {
        self.database = database
        self.list = list.name
        self.table = table
        self.idField = list.idField
        self.idType = fieldTypes[list.idField] ?? .string
        self.revisionField = revisionField
        self.fields = fieldTypes.keys.filter { $0 != list.idField && $0 != revisionField }.sorted()
        self.fieldTypes = fieldTypes
        let read = columns + fields.filter { !columns.contains($0) }
        self.columns = read
        self.layout = ItemLayout(read)
        let table = SQL.quote(table)
        let id = SQL.quote(list.idField)
        let revision = SQL.quote(revisionField)
        self.selectByID = "SELECT \(read.map(SQL.quote).joined(separator: ", ")) FROM \(table) WHERE \(id) = ?"
        self.returning = " RETURNING " + read.map(SQL.quote).joined(separator: ", ")
        let assignments = fields.map { "\(SQL.quote($0)) = ?" } + ["\(revision) = COALESCE(\(revision), 0) + 1"]
        self.updateByID = "UPDATE \(table) SET \(assignments.joined(separator: ", ")) WHERE \(id) = ?" + returning
        let written = fields + [revisionField]
        let insert = { [returning] (names: [String]) -> String in
            let marks = Array(repeating: "?", count: names.count).joined(separator: ", ")
            return "INSERT INTO \(table) (\(names.map(SQL.quote).joined(separator: ", "))) VALUES (\(marks))"
                + returning
        }
        self.insertWithID = insert([list.idField] + written)
        self.insertWithoutID = insert(written)
        self.provider = provider
        self.recorder = ChangeRecorder(views: list.views, idField: list.idField)
        self.changeLog = changeLog
    }

    /// Creates the idempotency table when missing.
    static func createTables(in db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS \(idempotencyTable) (
                    list TEXT NOT NULL,
                    key TEXT NOT NULL,
                    fingerprint TEXT NOT NULL,
                    item TEXT NOT NULL,
                    version INTEGER NOT NULL,
                    created_at REAL NOT NULL,
                    PRIMARY KEY (list, key)
                );
                CREATE INDEX IF NOT EXISTS data_mediator_idempotency_age ON \(idempotencyTable) (created_at);
                """
        )
    }

    /// Inserts a row; SQLite picks an integer id, or a random UUID is used for text ids.
    public func insert(
        id: String?,
        fields values: [String: JSONValue],
        idempotency: IdempotencyKey?
    ) async throws
        -> WriteResult
    {
        let key = try id.map { (id) throws(DataMediatorError) in try storedID(id) }
        return try await database.write { db in
            if let idempotency, let earlier = try replay(idempotency, in: db) {
                return earlier
            }
            if let key, try exists(key, in: db) {
                throw DataMediatorError(.conflict, "An item with id '\(id ?? "")' exists; PUT replaces it.")
            }
            let result = try record(old: nil, in: db) { try insertRow(key: key, values: values, in: db) }
            if let idempotency { try remember(idempotency, result: result, in: db) }
            return result
        }
    }

    /// Replaces the row with `id` (its revision goes up by one) or inserts it.
    public func replace(id: String, fields values: [String: JSONValue]) async throws -> WriteResult {
        let key = try storedID(id)
        return try await database.write { db in
            guard let old = try current(key, in: db) else {
                return try record(old: nil, in: db) { try insertRow(key: key, values: values, in: db) }
            }
            return try record(old: old, in: db) { try updateRow(key: key, values: values, in: db) }
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
            guard let old = try current(key, in: db) else { throw unknown(id) }
            var stored: [String: JSONValue] = [:]
            for field in fields where old[field] != .null { stored[field] = old[field] }
            let merged = JSONValue.object(stored).merging(patch).objectValue ?? [:]
            try check(merged)
            return try record(old: old, in: db) { try updateRow(key: key, values: merged, in: db) }
        }
    }

    /// Deletes the row with `id`.
    public func delete(id: String) async throws -> Int64 {
        let key = try storedID(id, missing: true)
        return try await database.write { db in
            guard let old = try current(key, in: db) else { throw unknown(id) }
            let before = try placements(of: old, withSectionAfter: false, in: db)
            try db.execute(sql: "DELETE FROM \(SQL.quote(table)) WHERE \(SQL.quote(idField)) = ?", arguments: [key])
            let version = try bumpVersion(db)
            try changeLog.append(
                version: version,
                id: id,
                item: nil,
                changes: recorder.changes(old: before, new: [:]),
                in: db
            )
            return version
        }
    }

    // MARK: - Changes

    /// Runs a write of one row and logs what it did to each view: the row's placements
    /// before and after, compared, at the version the write produced.
    private func record(old: Item?, in db: Database, write: () throws -> Item) throws -> WriteResult {
        let before = try placements(of: old, withSectionAfter: false, in: db)
        let item = try write()
        let version = try bumpVersion(db)
        let after = try placements(of: item, withSectionAfter: true, in: db)
        try changeLog.append(
            version: version,
            id: item[idField].idString,
            item: item,
            changes: recorder.changes(old: before, new: after),
            in: db
        )
        return WriteResult(item: item, version: version, created: old == nil)
    }

    private func placements(of item: Item?, withSectionAfter: Bool, in db: Database) throws -> [String: Placement] {
        try recorder.placements(
            of: item,
            withSectionAfter: withSectionAfter,
            before: { view, position, limit in try provider.items(before: position, in: view, limit: limit, db: db) },
            beforeSection: { view, key in try provider.lastItem(beforeSection: key, in: view, db: db) }
        )
    }

    // MARK: - Idempotency

    /// The stored result of an earlier insert with this key, or nil when the key is new
    /// (or older than the retention, and forgotten).
    ///
    /// - Throws: `idempotencyKeyReused` when the key came with another body.
    private func replay(_ idempotency: IdempotencyKey, in db: Database) throws -> WriteResult? {
        guard
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT fingerprint, item, version FROM \(Self.idempotencyTable)
                    WHERE list = ? AND key = ? AND created_at >= ?
                    """,
                arguments: [list, idempotency.key, Self.oldestKept()]
            )
        else { return nil }
        guard row[0] as String == idempotency.fingerprint else {
            throw DataMediatorError(
                .idempotencyKeyReused,
                "The Idempotency-Key '\(idempotency.key)' was used with another body; use a new key for a new item."
            )
        }
        guard let item = Item(objectJSON: Array((row[1] as String).utf8), layout: layout) else { return nil }
        return WriteResult(item: item, version: row[2], created: true, replayed: true)
    }

    /// When the oldest idempotency key still honoured was stored (seconds since 1970).
    private static func oldestKept() -> Double {
        Date().timeIntervalSince1970 - Double(IdempotencyKey.retention.components.seconds)
    }

    /// Stores the answer to a key (replacing an expired use of the same key), and deletes
    /// expired keys at most once a minute.
    private func remember(_ idempotency: IdempotencyKey, result: WriteResult, in db: Database) throws {
        if purge.isDue() {
            try db.execute(
                sql: "DELETE FROM \(Self.idempotencyTable) WHERE created_at < ?",
                arguments: [Self.oldestKept()]
            )
        }
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO \(Self.idempotencyTable) (list, key, fingerprint, item, version, created_at)
                VALUES (?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                list, idempotency.key, idempotency.fingerprint,
                String(decoding: result.item.objectJSON(), as: UTF8.self),
                result.version,
                Date().timeIntervalSince1970,
            ]
        )
    }

    // MARK: - Rows

    private func insertRow(key: DatabaseValue?, values: [String: JSONValue], in db: Database) throws -> Item {
        let arguments = fields.map { stored(values[$0] ?? .null, as: fieldTypes[$0]) } + [1.databaseValue]
        if let key {
            return try readItem(db, sql: insertWithID, arguments: [key] + arguments)
        }
        if idType != .integer {
            return try readItem(db, sql: insertWithID, arguments: [Hex.randomID().databaseValue] + arguments)
        }
        return try readItem(db, sql: insertWithoutID, arguments: arguments)
    }

    private func updateRow(key: DatabaseValue, values: [String: JSONValue], in db: Database) throws -> Item {
        let arguments = fields.map { stored(values[$0] ?? .null, as: fieldTypes[$0]) } + [key]
        return try readItem(db, sql: updateByID, arguments: arguments)
    }

    private func readItem(_ db: Database, sql: String, arguments: [DatabaseValue]) throws -> Item {
        guard let item = try fetchItem(db, sql: sql, arguments: arguments) else {
            throw DataMediatorError(.unavailable, "The write stored no row.")
        }
        return item
    }

    private func fetchItem(_ db: Database, sql: String, arguments: [DatabaseValue]) throws -> Item? {
        guard
            let row = try Row.fetchOne(
                db,
                sql: sql,
                arguments: StatementArguments(values: arguments)
            )
        else { return nil }
        let values = columns.indices.map { index in
            let stored = JSONValue(row[index] as DatabaseValue)
            return fieldTypes[columns[index]].map { $0.present(stored) } ?? stored
        }
        return Item(layout: layout, values: values)
    }

    /// The row with `key` as the list reads it (every writable field included), or nil.
    private func current(_ key: DatabaseValue, in db: Database) throws -> Item? {
        try fetchItem(db, sql: selectByID, arguments: [key])
    }

    private func exists(_ key: DatabaseValue, in db: Database) throws -> Bool {
        try Bool.fetchOne(
            db,
            sql: "SELECT 1 FROM \(SQL.quote(table)) WHERE \(SQL.quote(idField)) = ?",
            arguments: [key]
        ) ?? false
    }

    private func bumpVersion(_ db: Database) throws -> Int64 {
        try SQLiteStore.bumpVersion(of: table, in: db)
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
