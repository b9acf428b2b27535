import DataMediator

/// What an import into a list's table needs, worked out once: the table, the columns
/// written (the id, then every declared field but the revision), the `INSERT` of one row,
/// and the check of each record against the list's rules.
public struct ImportPlan: Sendable {
    /// The list imported into.
    public let list: ListDefinition
    /// Its table.
    public let table: String
    /// The columns written, in order.
    public let columns: [String]
    /// `INSERT INTO table (columns) VALUES (?, ...)`, with `?` placeholders (cast where the
    /// column needs it).
    public let insertSQL: String
    /// One row's `(?, ...)` of ``insertSQL``.
    private let rowSQL: String
    private let fieldTypes: [String: FieldType]
    /// Whether the id column is a uuid, whose ids are taken in ``UUIDText``'s spelling only.
    private let idIsUUID: Bool
    /// The sequence the id column draws from, moved past the imported ids at the end.
    private let sequence: IDSequence?

    /// The plan of an import into `list` over `source`; `casts` names the type each
    /// column's value is cast to (``SQLListReader/writeCasts``), `sequence` the one the id
    /// column draws from (``SQLListReader/idSequence``).
    ///
    /// - Throws: `StoreError` when the list is over a query.
    public init(
        list: ListDefinition,
        source: StoreSource,
        casts: [String: String] = [:],
        sequence: IDSequence? = nil
    ) throws {
        guard case .table(let table) = source.kind else {
            throw StoreError(list: list.name, "is over a query; import into a list over a table")
        }
        self.list = list
        self.table = table
        self.fieldTypes = source.fieldTypes
        self.idIsUUID = casts[list.idField] == "uuid"
        self.sequence = sequence
        let declared = source.fieldTypes.keys.filter { $0 != list.idField && $0 != list.revisionField }.sorted()
        self.columns = [list.idField] + declared
        let marks = columns.map { SQL.placeholder(of: $0, casts: casts) }.joined(separator: ", ")
        let rowSQL = "(\(marks))"
        self.rowSQL = rowSQL
        self.insertSQL = Self.insertSQL(into: table, columns: columns, rowSQL: rowSQL, rows: 1, sequence: sequence)
    }

    /// ``insertSQL`` of `rows` rows, their values one row after another.
    public func insertSQL(rows: Int) -> String {
        Self.insertSQL(into: table, columns: columns, rowSQL: rowSQL, rows: rows, sequence: sequence)
    }

    private static func insertSQL(
        into table: String,
        columns: [String],
        rowSQL: String,
        rows: Int,
        sequence: IDSequence?
    ) -> String {
        "INSERT INTO \(SQL.quote(table)) (\(columns.map(SQL.quote).joined(separator: ", ")))"
            + "\(sequence?.overriding ?? "") VALUES "
            + Array(repeating: rowSQL, count: max(1, rows)).joined(separator: ", ")
    }

    /// A record's values in ``columns`` order, checked against the list's rules (see
    /// ``ImportRecord/values(columns:idField:idType:types:rules:)``).
    /// A uuid id in another spelling (capitals, braces, no hyphens) is refused: it would be
    /// stored as the uuid, under an id other than the record's.
    public func values(of record: ImportRecord) throws -> [JSONValue] {
        let values = try record.values(
            columns: columns,
            idField: list.idField,
            idType: fieldTypes[list.idField] ?? .string,
            types: fieldTypes,
            rules: list.rules
        )
        if idIsUUID, case .string(let id)? = values.first, !UUIDText.isCanonical(id) {
            throw UUIDText.refusal(ofID: id, field: list.idField)
        }
        return values
    }
}

extension ImportPlan {
    /// Ends an import in its last transaction: raises the store's version by one for the
    /// table and restarts the list's change history there (a bulk load logs no changes item
    /// by item, so a client holding older pages gets `410` and reloads), and moves the id
    /// column's sequence past the largest id; returns the version.
    public func finish(_ session: any SQLSession) async throws -> Int64 {
        try await TableStamps.endBulk(of: table, session)
        if let sequence {
            let largest = "(SELECT MAX(\(SQL.quote(list.idField))) FROM \(SQL.quote(table)))"
            _ = try await session.rows(sequence.advanceSQL(to: largest), [])
        }
        try await StoreVersion.register(table, session)
        let version = try await StoreVersion.bump(for: table, session)
        try await SQLChangeLog.restart(list: list.name, at: version, session)
        return version
    }
}
