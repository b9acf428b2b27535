import DataMediator

/// Writes a table list's items in a SQL store, each write one transaction: the row, its
/// revision, the store's version and the change log change together, writes are applied
/// one at a time in version order (``StoreVersion/lock(_:)``), and the call returns after
/// the commit, so an answered write is durable.
public struct SQLItemWriter: ItemWriter {
    let transactions: any SQLTransactions
    let list: String
    let table: String
    let idField: String
    /// Whether ids are whole numbers (an integer id column).
    let idIsInteger: Bool
    /// The largest id the integer id column holds (the least is one less than its negative).
    let idMaximum: Int64
    /// Whether ids are uuids (a PostgreSQL uuid id column), taken as ``UUIDText`` spells them.
    let idIsUUID: Bool
    /// Whether the id column drops trailing blanks (PostgreSQL's `char(n)`): its comparison
    /// ignores them, so an id with them would name the row without.
    let idDropsBlanks: Bool
    /// Every writable field, in a fixed order (the id and revision excluded).
    let fields: [String]
    let fieldTypes: [String: FieldType]
    /// The layout of a row as a write reads it back (the list's columns and every
    /// writable field), and how each column is shown.
    let layout: ItemLayout
    let columnTypes: [FieldType?]
    /// The rules of the columns that hold less than their fields' types say (``ColumnRule``).
    let columnRules: [String: ColumnRule]
    /// The fields whose written text is read back (``SQLListReader/numericTextFields``).
    let numericTextFields: Set<String>
    /// The list's scope field, whose stored value each write checks (``keptInSlice(_:values:)``).
    let scopeField: String?
    let statements: RowStatements
    /// Deletes a batch of expired idempotency keys at most once a second
    /// (``remember(_:result:_:)``).
    let purge = Throttle(every: .seconds(1))
    /// Every writable list over the table (this one among them), whose change logs each
    /// write records in.
    let tableWriters: TableWriters

    /// The writer of `list` into `table` of the reader's store; `reader` reads the list's
    /// views (to place what a write changed) and `changeLog` records it.
    public init(
        list: ListDefinition,
        table: String,
        revisionField: String,
        fieldTypes: [String: FieldType],
        idIsInteger: Bool,
        reader: SQLListReader,
        changeLog: SQLChangeLog,
        tableWriters: TableWriters
    ) {
        self.transactions = reader.transactions
        self.list = list.name
        self.table = table
        self.idField = list.idField
        self.idIsInteger = idIsInteger
        self.idMaximum = reader.idMaximum
        self.idIsUUID = reader.keyset.uuidColumns.contains(list.idField)
        self.idDropsBlanks = reader.writeCasts[list.idField] == "bpchar"
        let fields = fieldTypes.keys.filter { $0 != list.idField && $0 != revisionField }.sorted()
        self.fields = fields
        self.fieldTypes = fieldTypes
        let columns = StoreSource.columns(of: list)
        let read = columns + fields.filter { !columns.contains($0) }
        self.layout = ItemLayout(read)
        self.columnTypes = read.map { fieldTypes[$0] }
        self.columnRules = reader.columnRules
        self.numericTextFields = reader.numericTextFields
        self.scopeField = list.scope?.field
        self.statements = RowStatements(
            table: table,
            idField: list.idField,
            revisionField: revisionField,
            fields: fields,
            read: read,
            casts: reader.writeCasts,
            forms: reader.keyset.textForms,
            sequence: reader.idSequence,
            idMaximum: reader.idMaximum,
            dialect: reader.dialect
        )
        self.tableWriters = tableWriters
        tableWriters.add(
            TableWriters.Observer(
                reader: reader,
                recorder: ChangeRecorder(views: list.views, idField: list.idField, scopeField: list.scope?.field),
                changeLog: changeLog
            ),
            for: table
        )
    }

    /// Inserts a row; an integer id is chosen by the store (one more than the largest), a
    /// text id is a random one.
    public func insert(
        id: String?,
        fields values: [String: JSONValue],
        idempotency: IdempotencyKey?,
        precondition: VersionPrecondition?
    ) async throws -> WriteResult {
        let key = try id.map { (id) throws(DataMediatorError) in try storedID(id) }
        try ColumnRule.check(values, rules: columnRules)
        return try await committed(writing: values) { session in
            let stampBefore = try await lock(session)
            if let idempotency, let earlier = try await replay(idempotency, session) {
                return (earlier, .none)
            }
            if let precondition { try precondition(try await StoreVersion.current(session)) }
            // Whether the id is taken is read by the insert (the transaction rolls back).
            let written = try await record(old: nil, stampBefore: stampBefore, writing: values, session) {
                guard let item = try await insertRow(key: key, values: values, session) else {
                    throw DataMediatorError.idTaken(id ?? "")
                }
                return item
            }
            if let idempotency { try await remember(idempotency, result: written.result, session) }
            return written
        }
    }

    /// Replaces the row with `id` (its revision goes up by one) or inserts it.
    public func replace(
        id: String,
        fields values: [String: JSONValue],
        scope: WriteScope?,
        precondition: WritePrecondition?
    ) async throws -> WriteResult {
        let key = try storedID(id)
        try ColumnRule.check(values, rules: columnRules)
        return try await committed(writing: values) { session in
            let (stampBefore, old) = try await lockAndRead(key, keepingKey: true, session)
            if let scope, let old, !scope.contains(old) { throw unknown(id) }
            try precondition?(old)
            guard let old else {
                return try await record(old: nil, stampBefore: stampBefore, writing: values, session) {
                    // Another program wrote the id since the read.
                    guard let item = try await insertRow(key: key, values: values, session) else {
                        throw DataMediatorError(.conflict, "The item '\(id)' was written meanwhile; retry.")
                    }
                    return item
                }
            }
            return try await record(old: old, stampBefore: stampBefore, writing: values, session) {
                try await updateRow(key: key, values: values, session)
            }
        }
    }

    /// Merges the patch into the row's fields, checks them, and stores them.
    public func patch(
        id: String,
        with patch: JSONValue,
        scope: WriteScope?,
        precondition: WritePrecondition?,
        check: @escaping @Sendable ([String: JSONValue]) throws -> Void
    ) async throws -> WriteResult {
        let key = try storedID(id, missing: true)
        return try await committed(writing: patch.objectValue ?? [:]) { session in
            let (stampBefore, current) = try await lockAndRead(key, keepingKey: true, session)
            guard let old = current, scope?.contains(old) ?? true else {
                throw unknown(id)
            }
            try precondition?(old)
            let stored = Dictionary(uniqueKeysWithValues: fields.map { ($0, old[$0]) })
            let merged = WriteScope.merge(stored, with: patch, in: scope)
            try check(merged)
            // Only the fields the patch names are written (RFC 7396): a stored value the
            // service shows otherwise than it is kept (a numeric's digits, a date BC, an
            // array of two dimensions) stays as it is.
            let named = patch.objectValue ?? [:]
            let written = fields.filter { named[$0] != nil }
            try ColumnRule.check(named, rules: columnRules)
            return try await record(old: old, stampBefore: stampBefore, writing: named, session) {
                try await updateRow(key: key, values: merged, writing: written, session)
            }
        }
    }

    /// Deletes the row with `id`.
    public func delete(id: String, scope: WriteScope?, precondition: WritePrecondition?) async throws -> Int64 {
        let key = try storedID(id, missing: true)
        return try await committed { session in
            let (stampBefore, current) = try await lockAndRead(key, session)
            guard let old = current, scope?.contains(old) ?? true else { throw unknown(id) }
            try precondition?(old)
            let recorded = try await record(key: key, id: id, old: old, stampBefore: stampBefore, session) {
                if try await session.rows(statements.deleteByID, [key]).isEmpty { throw Self.kept }
                return nil
            }
            return (recorded.version, recorded.carry)
        }
    }

    /// Takes the lock of the row with `key` (nil: none; one that leaves its key alone when
    /// `keepingKey`, for a patch or a replace), then the store's version lock
    /// (``StoreVersion/lock(_:reading:thenLocking:)``), and reads the table's stamp: the
    /// stamp before the write, which the outlines carry from.
    private func lock(
        _ session: any SQLSession,
        row key: JSONValue? = nil,
        keepingKey: Bool = false
    ) async throws -> Int64? {
        try await StoreVersion.lock(
            session,
            reading: TableStamps.beforeWriteSQL(of: table, session.dialect),
            thenLocking: key.map { (keepingKey ? statements.lockByIDKeepingKey : statements.lockByID, [$0]) }
        )
    }

    /// Takes the row's lock and the version lock in the order the session says
    /// (``SQLSession/rowLockFirst``), reads the table's stamp (``lock(_:row:keepingKey:)``)
    /// and the row as it stands under both; nil for no row.
    private func lockAndRead(
        _ key: JSONValue,
        keepingKey: Bool = false,
        _ session: any SQLSession
    ) async throws -> (stampBefore: Int64?, old: Item?) {
        guard session.dialect == .postgres, !session.rowLockFirst else {
            let stampBefore = try await lock(session, row: key, keepingKey: keepingKey)
            return (stampBefore, try await current(key, session))
        }
        // The version lock first, then the row's lock as it is read: one statement each, as
        // in the other order.
        let stampBefore = try await lock(session)
        let locking = keepingKey ? statements.selectByIDLockingKeepingKey : statements.selectByIDLocking
        return (stampBefore, try await session.items(locking, [key], layout: layout, types: columnTypes).first)
    }

    /// Runs `write` in one transaction and, once it committed, carries the outlines of the
    /// lists over the table over the write (``OutlineCarry``).
    /// A refusal of one of `values` names its field (``ConstraintRefusal/naming(_:among:rules:)``).
    private func committed<Result: Sendable>(
        writing values: [String: JSONValue] = [:],
        _ write: @escaping @Sendable (any SQLSession) async throws -> (Result, OutlineCarry)
    ) async throws -> Result {
        let result: Result
        let carry: OutlineCarry
        do {
            (result, carry) = try await transactions.write(write)
        } catch {
            throw await everyCastRefused(ConstraintRefusal.naming(error, among: values, rules: columnRules), values)
        }
        carry.apply()
        return result
    }

    // MARK: - Rows

    /// Inserts the row (with `key`, or an id the store chooses); nil when `key` is taken.
    /// The fields `values` lacks take their columns' defaults.
    private func insertRow(
        key: JSONValue?,
        values: [String: JSONValue],
        _ session: any SQLSession
    ) async throws
        -> Item?
    {
        // A field the write does not give takes its column's default (NULL unless the table
        // declares one).
        let given = fields.filter { values[$0] != nil }
        let statements = self.statements.inserts(writing: given)
        let written = given.map { stored(values[$0] ?? .null, as: fieldTypes[$0]) } + [.integer(1)]
        let id: JSONValue
        if let key {
            id = key
        } else if idIsInteger {
            // The store chooses the id in the insert itself.
            guard session.dialect == .postgres else {
                let item = try await readItem(statements.insertIssuingID, [.string(table)] + written, session)
                try await session.execute(IssuedIDs.recordSQL(session.dialect), [.string(table), item[idField]])
                return try keptAsText(item, written: given, values: values)
            }
            return try await readItem(
                statements.insertIssuingID,
                [.string(table)] + written + [.string(table)],
                session
            )
        } else {
            id = .string(idIsUUID ? UUIDText.random() : Hex.randomID())
        }
        if case .integer = id, let insertRecordingID = statements.insertRecordingID {
            return try await insertedItem(insertRecordingID, [id] + written + [id, .string(table)], session)
                .map { try keptAsText($0, written: given, values: values) }
        }
        guard let item = try await insertedItem(statements.insert, [id] + written + [id], session) else { return nil }
        if case .integer = id {
            try await session.execute(IssuedIDs.recordSQL(session.dialect), [.string(table), id])
        }
        return try keptAsText(item, written: given, values: values)
    }

    /// Updates the row's `written` fields (every writable field when nil) to `values`.
    private func updateRow(
        key: JSONValue,
        values: [String: JSONValue],
        writing written: [String]? = nil,
        _ session: any SQLSession
    ) async throws -> Item {
        let written = written ?? fields
        let arguments = written.map { stored(values[$0] ?? .null, as: fieldTypes[$0]) } + [key]
        let item = try await readItem(statements.update(writing: written), arguments, session)
        return try keptAsText(item, written: written, values: values)
    }

    /// The refusal of a write the table did not make (for an update or a delete, though the
    /// row is there, read under the write's lock): a trigger of the table ignored it (SQLite's `RAISE(IGNORE)`, a
    /// PostgreSQL `BEFORE` trigger that returns NULL).
    static let kept = DataMediatorError(
        .conflict,
        "The table kept the item as it was: a trigger of the table ignored the write."
    )

    /// The row an insert that may insert nothing read back, nil when it inserted nothing.
    private func insertedItem(
        _ sql: String,
        _ arguments: [JSONValue],
        _ session: any SQLSession
    ) async throws -> Item? {
        try await session.items(sql, arguments, layout: layout, types: columnTypes).first
    }

    private func readItem(_ sql: String, _ arguments: [JSONValue], _ session: any SQLSession) async throws -> Item {
        guard let item = try await session.items(sql, arguments, layout: layout, types: columnTypes).first else {
            throw Self.kept
        }
        return item
    }

    /// The row with `key` as the list reads it (every writable field included), or nil.
    func current(_ key: JSONValue, _ session: any SQLSession) async throws -> Item? {
        try await session.items(statements.selectByID, [key], layout: layout, types: columnTypes).first
    }

    /// A value as the column stores it: JSON fields as JSON text, the rest as they are.
    func stored(_ value: JSONValue, as type: FieldType?) -> JSONValue {
        if type == .json, value != .null {
            var writer = JSONWriter()
            writer.write(value)
            return .string(writer.string)
        }
        return value
    }

    func unknown(_ id: String) -> DataMediatorError {
        DataMediatorError(.unknownItem, "There is no item '\(id)' in list '\(list)'.")
    }
}
