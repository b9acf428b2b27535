import DataMediator
import DataMediatorSQL
import Foundation
import Logging
import PostgresNIO
import Synchronization

/// Writes a table list's items, each write one transaction on the primary that first locks
/// the store's version row: the row, its revision, the store's version and the change log
/// change together, writes from every replica are applied one at a time in version order,
/// and the call returns after the commit, so an answered write is durable.
public struct PostgresItemWriter: ItemWriter {
    /// The table of idempotency keys.
    static let idempotencyTable = "data_mediator_idempotency"

    private let store: PostgresStore
    private let list: String
    private let table: String
    private let idField: String
    private let idIsInteger: Bool
    /// Every writable field, in a fixed order (the id and revision excluded).
    private let fields: [String]
    private let fieldTypes: [String: FieldType]
    /// The columns a read returns (the list's and every writable field), and their layout.
    private let columns: [String]
    private let layout: ItemLayout
    /// The SQL that does not change from write to write, built once (`?` placeholders).
    private let selectByID: String
    private let updateByID: String
    private let insert: String
    private let nextID: String
    private let deleteByID: String
    /// Deletes expired idempotency keys at most once a minute.
    private let purge = Throttle(every: .seconds(60))
    private let provider: PostgresDataProvider
    private let recorder: ChangeRecorder
    private let changeLog: PostgresChangeLog

    init(
        store: PostgresStore,
        list: ListDefinition,
        table: String,
        revisionField: String,
        fieldTypes: [String: FieldType],
        columns: [String],
        idIsInteger: Bool,
        provider: PostgresDataProvider,
        changeLog: PostgresChangeLog
    ) {
        self.store = store
        self.list = list.name
        self.table = table
        self.idField = list.idField
        self.idIsInteger = idIsInteger
        self.fields = fieldTypes.keys.filter { $0 != list.idField && $0 != revisionField }.sorted()
        self.fieldTypes = fieldTypes
        let read = columns + fields.filter { !columns.contains($0) }
        self.columns = read
        self.layout = ItemLayout(read)
        let table = SQL.quote(table)
        let id = SQL.quote(list.idField)
        let revision = SQL.quote(revisionField)
        let returning = " RETURNING " + read.map(SQL.quote).joined(separator: ", ")
        self.selectByID = "SELECT \(read.map(SQL.quote).joined(separator: ", ")) FROM \(table) WHERE \(id) = ?"
        let assignments = fields.map { "\(SQL.quote($0)) = ?" } + ["\(revision) = COALESCE(\(revision), 0) + 1"]
        self.updateByID = "UPDATE \(table) SET \(assignments.joined(separator: ", ")) WHERE \(id) = ?" + returning
        let names = [list.idField] + fields + [revisionField]
        self.insert =
            "INSERT INTO \(table) (\(names.map(SQL.quote).joined(separator: ", "))) VALUES ("
            + Array(repeating: "?", count: names.count).joined(separator: ", ") + ")" + returning
        self.nextID = "SELECT (COALESCE(MAX(\(id)), 0) + 1)::bigint FROM \(table)"
        self.deleteByID = "DELETE FROM \(table) WHERE \(id) = ?"
        self.provider = provider
        self.recorder = ChangeRecorder(views: list.views, idField: list.idField)
        self.changeLog = changeLog
    }

    private var logger: Logger { store.logger }

    /// Inserts a row; an integer id is one more than the largest, a text id a random one.
    public func insert(
        id: String?,
        fields values: [String: JSONValue],
        idempotency: IdempotencyKey?
    ) async throws -> WriteResult {
        let key = try id.map { (id) throws(DataMediatorError) in try storedID(id) }
        return try await store.write { connection in
            try await lockVersion(connection)
            if let idempotency, let earlier = try await replay(idempotency, connection) {
                return earlier
            }
            if let key, try await current(key, connection) != nil {
                throw DataMediatorError(.conflict, "An item with id '\(id ?? "")' exists; PUT replaces it.")
            }
            let result = try await record(old: nil, connection) {
                try await insertRow(key: key, values: values, connection)
            }
            if let idempotency { try await remember(idempotency, result: result, connection) }
            return result
        }
    }

    /// Replaces the row with `id` (its revision goes up by one) or inserts it.
    public func replace(id: String, fields values: [String: JSONValue]) async throws -> WriteResult {
        let key = try storedID(id)
        return try await store.write { connection in
            try await lockVersion(connection)
            guard let old = try await current(key, connection) else {
                return try await record(old: nil, connection) {
                    try await insertRow(key: key, values: values, connection)
                }
            }
            return try await record(old: old, connection) { try await updateRow(key: key, values: values, connection) }
        }
    }

    /// Merges the patch into the row's fields, checks them, and stores them.
    public func patch(
        id: String,
        with patch: JSONValue,
        check: @Sendable ([String: JSONValue]) throws -> Void
    ) async throws -> WriteResult {
        let key = try storedID(id, missing: true)
        // The transaction ends before this call returns, so `check` does not outlive it.
        return try await withoutActuallyEscaping(check) { check in
            try await store.write { connection in
                try await lockVersion(connection)
                guard let old = try await current(key, connection) else { throw unknown(id) }
                var stored: [String: JSONValue] = [:]
                for field in fields where old[field] != .null { stored[field] = old[field] }
                let merged = JSONValue.object(stored).merging(patch).objectValue ?? [:]
                try check(merged)
                return try await record(old: old, connection) {
                    try await updateRow(key: key, values: merged, connection)
                }
            }
        }
    }

    /// Deletes the row with `id`.
    public func delete(id: String) async throws -> Int64 {
        let key = try storedID(id, missing: true)
        return try await store.write { connection in
            try await lockVersion(connection)
            guard let old = try await current(key, connection) else { throw unknown(id) }
            let before = try await placements(of: old, withSectionAfter: false, connection)
            try await connection.query(PostgresQuery(sql: deleteByID, values: [key]), logger: logger)
            let version = try await bumpVersion(connection)
            try await changeLog.append(
                version: version,
                id: id,
                item: nil,
                changes: recorder.changes(old: before, new: [:]),
                connection
            )
            return version
        }
    }

    // MARK: - Versions and changes

    /// Locks the store's version row until the transaction ends: writes wait for each other
    /// here, so each sees every earlier write and gets the next version.
    private func lockVersion(_ connection: PostgresConnection) async throws {
        try await connection.query(
            "SELECT version FROM \(unescaped: PostgresStore.storeTable) FOR UPDATE",
            logger: logger
        )
    }

    /// Raises the store's version by one, records it as the table's last change, and tells
    /// every replica (the notification is delivered on commit).
    private func bumpVersion(_ connection: PostgresConnection) async throws -> Int64 {
        let rows = try await connection.query(
            "UPDATE \(unescaped: PostgresStore.storeTable) SET version = version + 1 RETURNING version",
            logger: logger
        )
        var version: Int64?
        for try await value in rows.decode(Int64.self) { version = value }
        guard let version else { throw DataMediatorError(.unavailable, "The store has no version row.") }
        try await connection.query(
            "UPDATE \(unescaped: PostgresStore.versionTable) SET changed_at = \(version) WHERE source = \(table)",
            logger: logger
        )
        try await connection.query("SELECT pg_notify(\(PostgresStore.channel), \(String(version)))", logger: logger)
        return version
    }

    /// Runs a write of one row and logs what it did to each view: the row's placements
    /// before and after, compared, at the version the write produced.
    private func record(
        old: Item?,
        _ connection: PostgresConnection,
        write: () async throws -> Item
    ) async throws -> WriteResult {
        let before = try await placements(of: old, withSectionAfter: false, connection)
        let item = try await write()
        let version = try await bumpVersion(connection)
        let after = try await placements(of: item, withSectionAfter: true, connection)
        try await changeLog.append(
            version: version,
            id: item[idField].idString,
            item: item,
            changes: recorder.changes(old: before, new: after),
            connection
        )
        return WriteResult(item: item, version: version, created: old == nil)
    }

    private func placements(
        of item: Item?,
        withSectionAfter: Bool,
        _ connection: PostgresConnection
    ) async throws -> [String: Placement] {
        try await recorder.placements(
            of: item,
            withSectionAfter: withSectionAfter,
            before: { view, position, limit in
                try await provider.items(before: position, in: view, limit: limit, connection)
            },
            beforeSection: { view, key in try await provider.lastItem(beforeSection: key, in: view, connection) }
        )
    }

    // MARK: - Idempotency

    /// The stored result of an earlier insert with this key, or nil when the key is new
    /// (or older than the retention, and forgotten).
    ///
    /// - Throws: `idempotencyKeyReused` when the key came with another body.
    private func replay(_ idempotency: IdempotencyKey, _ connection: PostgresConnection) async throws -> WriteResult? {
        let rows = try await connection.query(
            """
            SELECT fingerprint, item, version FROM \(unescaped: Self.idempotencyTable)
            WHERE list = \(list) AND key = \(idempotency.key) AND created_at >= \(Self.oldestKept())
            """,
            logger: logger
        )
        var earlier: (fingerprint: String, item: String, version: Int64)?
        for try await row in rows.decode((String, String, Int64).self) { earlier = row }
        guard let earlier else { return nil }
        guard earlier.fingerprint == idempotency.fingerprint else {
            throw DataMediatorError(
                .idempotencyKeyReused,
                "The Idempotency-Key '\(idempotency.key)' was used with another body; use a new key for a new item."
            )
        }
        guard let item = Item(objectJSON: Array(earlier.item.utf8), layout: layout) else { return nil }
        return WriteResult(item: item, version: earlier.version, created: true, replayed: true)
    }

    /// When the oldest idempotency key still honoured was stored (seconds since 1970).
    private static func oldestKept() -> Double {
        Date().timeIntervalSince1970 - Double(IdempotencyKey.retention.components.seconds)
    }

    /// Stores the answer to a key (replacing an expired use of the same key), and deletes
    /// expired keys at most once a minute.
    private func remember(
        _ idempotency: IdempotencyKey,
        result: WriteResult,
        _ connection: PostgresConnection
    )
        async throws
    {
        if purge.isDue() {
            try await connection.query(
                "DELETE FROM \(unescaped: Self.idempotencyTable) WHERE created_at < \(Self.oldestKept())",
                logger: logger
            )
        }
        let item = String(decoding: result.item.objectJSON(), as: UTF8.self)
        try await connection.query(
            """
            INSERT INTO \(unescaped: Self.idempotencyTable) (list, key, fingerprint, item, version, created_at)
            VALUES (\(list), \(idempotency.key), \(idempotency.fingerprint), \(item), \(result.version),
                \(Date().timeIntervalSince1970))
            ON CONFLICT (list, key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, item = EXCLUDED.item,
                version = EXCLUDED.version, created_at = EXCLUDED.created_at
            """,
            logger: logger
        )
    }

    // MARK: - Rows

    private func insertRow(
        key: JSONValue?,
        values: [String: JSONValue],
        _ connection: PostgresConnection
    ) async throws
        -> Item
    {
        let id: JSONValue
        if let key {
            id = key
        } else if idIsInteger {
            let rows = try await connection.query(PostgresQuery(unsafeSQL: nextID), logger: logger)
            var next: Int64 = 1
            for try await value in rows.decode(Int64.self) { next = value }
            id = .integer(next)
        } else {
            id = .string(Hex.randomID())
        }
        let arguments = [id] + fields.map { stored(values[$0] ?? .null, as: fieldTypes[$0]) } + [.integer(1)]
        return try await readItem(insert, arguments, connection)
    }

    private func updateRow(
        key: JSONValue,
        values: [String: JSONValue],
        _ connection: PostgresConnection
    ) async throws
        -> Item
    {
        let arguments = fields.map { stored(values[$0] ?? .null, as: fieldTypes[$0]) } + [key]
        return try await readItem(updateByID, arguments, connection)
    }

    private func readItem(
        _ sql: String,
        _ arguments: [JSONValue],
        _ connection: PostgresConnection
    ) async throws
        -> Item
    {
        guard let item = try await fetchItem(sql, arguments, connection) else {
            throw DataMediatorError(.unavailable, "The write stored no row.")
        }
        return item
    }

    private func fetchItem(
        _ sql: String,
        _ arguments: [JSONValue],
        _ connection: PostgresConnection
    ) async throws
        -> Item?
    {
        let rows = try await connection.query(PostgresQuery(sql: sql, values: arguments), logger: logger)
        var item: Item?
        for try await row in rows {
            item = Item(layout: layout, values: try row.jsonValues(types: columns.map { fieldTypes[$0] }))
        }
        return item
    }

    /// The row with `key` as the list reads it (every writable field included), or nil.
    private func current(_ key: JSONValue, _ connection: PostgresConnection) async throws -> Item? {
        try await fetchItem(selectByID, [key], connection)
    }

    /// A value as the column stores it: JSON fields as JSON text, the rest as they are.
    private func stored(_ value: JSONValue, as type: FieldType?) -> JSONValue {
        if type == .json, value != .null {
            var writer = JSONWriter()
            writer.write(value)
            return .string(writer.string)
        }
        return value
    }

    /// The id as the column stores it.
    ///
    /// - Throws: `invalidItem` (or `unknownItem` when `missing`, since no such item can
    ///   exist) for an id that an integer id column cannot hold.
    private func storedID(_ id: String, missing: Bool = false) throws(DataMediatorError) -> JSONValue {
        guard idIsInteger else { return .string(id) }
        guard let whole = Int64(id), String(whole) == id else {
            if missing { throw unknown(id) }
            throw DataMediatorError(
                .invalidItem,
                "Ids of this list are whole numbers; '\(id)' is not one.",
                fieldProblems: [FieldProblem(field: "id", detail: "must be a whole number")]
            )
        }
        return .integer(whole)
    }

    private func unknown(_ id: String) -> DataMediatorError {
        DataMediatorError(.unknownItem, "There is no item '\(id)' in list '\(list)'.")
    }
}
