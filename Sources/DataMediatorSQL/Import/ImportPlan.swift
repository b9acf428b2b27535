import DataMediator

/// What an import into a list's table needs, worked out once: the table, the columns
/// written (the id, then every declared field but the revision), the `INSERT` of rows,
/// and the check of each record against the list's rules. A field a record lacks takes
/// its column's default, as in a created item (given as `null`, it is `null`).
public struct ImportPlan: Sendable {
    /// The list imported into.
    public let list: ListDefinition
    /// Its table.
    public let table: String
    /// The columns written, in order.
    public let columns: [String]
    /// Each column's placeholder (cast where the column needs it).
    private let marks: [String]
    private let fieldTypes: [String: FieldType]
    /// Whether the id column is a uuid, whose ids are taken in ``UUIDText``'s spelling only.
    private let idIsUUID: Bool
    /// The sequence the id column draws from, moved past the imported ids at the end.
    private let sequence: IDSequence?
    /// The rules of the columns that hold less than their fields' types say (``ColumnRule``).
    private let columnRules: [String: ColumnRule]
    /// The indexes among ``columns`` of the `string` fields over columns of NUMERIC affinity
    /// (``SQLListReader/numericTextFields``), which an insert of one row reads back to
    /// check that their text was kept (``KeptText``).
    public let textColumns: [Int]
    /// The casts of the columns' values, to name every value refused when one was.
    let castRefusals: CastRefusals

    /// The plan of an import into `list` over `source`; `casts` names the type each
    /// column's value is cast to (``SQLListReader/writeCasts``), `sequence` the one the id
    /// column draws from (``SQLListReader/idSequence``), `columnRules` the rules of its
    /// columns (``SQLListReader/columnRules``), `numericTextFields` the fields whose text
    /// is read back (``SQLListReader/numericTextFields``).
    ///
    /// - Throws: `StoreError` when the list is over a query.
    public init(
        list: ListDefinition,
        source: StoreSource,
        casts: [String: String] = [:],
        sequence: IDSequence? = nil,
        columnRules: [String: ColumnRule] = [:],
        numericTextFields: Set<String> = []
    ) throws {
        guard case .table(let table) = source.kind else {
            throw StoreError(list: list.name, "is over a query; import into a list over a table")
        }
        self.list = list
        self.table = table
        self.fieldTypes = source.fieldTypes
        self.idIsUUID = casts[list.idField] == "uuid"
        self.sequence = sequence
        self.columnRules = columnRules
        let declared = source.fieldTypes.keys.filter { $0 != list.idField && $0 != list.revisionField }.sorted()
        let columns = [list.idField] + declared
        self.columns = columns
        self.marks = columns.map { SQL.placeholder(of: $0, casts: casts) }
        self.castRefusals = CastRefusals(casts: casts)
        self.textColumns = columns.indices.filter { numericTextFields.contains(columns[$0]) }
    }

    /// The problems of the text `values` gave that the row read back (`stored`: the
    /// ``textColumns``' values, in order; none read, none found) did not keep as text.
    public func unkept(_ values: [JSONValue], given: [Bool], stored: [JSONValue]) -> [FieldProblem] {
        zip(textColumns, stored).compactMap { index, kept in
            given[index] ? KeptText.problem(field: columns[index], given: values[index], stored: kept) : nil
        }
    }

    /// Whether a row holds an id (argument: the id): one row when it does, none otherwise.
    public var idExistsSQL: String {
        "SELECT 1 FROM \(SQL.quote(table)) WHERE \(SQL.quote(list.idField)) = \(marks[0]) LIMIT 1"
    }

    /// Which of ``columns`` `record` gives (its id always); the others take their defaults.
    public func given(by record: ImportRecord) -> [Bool] {
        columns.map { $0 == list.idField || record.fields[$0] != nil }
    }

    /// `INSERT INTO table (columns) VALUES (?, ...), ...` of rows that give the columns
    /// `given` says (one entry a row, each as ``given(by:)``), with `?` placeholders for the
    /// values given, one row after another. One row names the columns it gives (SQLite has
    /// no `DEFAULT` in `VALUES`); several (PostgreSQL) write `DEFAULT` for each lacking one.
    /// Each row's revision (the list's revision field, when it has one) is 1, as a
    /// created item's.
    public func insertSQL(given rows: [[Bool]]) -> String {
        let into = "INSERT INTO \(SQL.quote(table)) ("
        let revision = list.revisionField.map { [SQL.quote($0)] } ?? []
        let first = revision.map { _ in "1" }
        let overriding = sequence?.overriding ?? ""
        if rows.count == 1, let given = rows.first {
            let written = columns.indices.filter { given[$0] }
            return into + (written.map { SQL.quote(columns[$0]) } + revision).joined(separator: ", ")
                + ")\(overriding) VALUES (\((written.map { marks[$0] } + first).joined(separator: ", ")))"
        }
        let values = rows.map { given in
            "(" + (columns.indices.map { given[$0] ? marks[$0] : "DEFAULT" } + first).joined(separator: ", ") + ")"
        }
        return into + (columns.map(SQL.quote) + revision).joined(separator: ", ") + ")\(overriding) VALUES "
            + values.joined(separator: ", ")
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
        try ColumnRule.check(record.fields, rules: columnRules)
        return values
    }
}

extension ImportPlan {
    /// Ends an import in its last transaction: raises the store's version by one for the
    /// table and restarts the list's change history there (a bulk load logs no changes item
    /// by item, so a client holding older pages gets `410` and reloads; the other lists over
    /// the table answer a `reload`, ``OutsideWrites``), and moves the id
    /// column's sequence past the largest id, which the store records as given
    /// (``IssuedIDs``: an imported item deleted later does not lend its id to a new one, at
    /// `rev` 1 again, review 106 #3); returns the version.
    public func finish(_ session: any SQLSession) async throws -> Int64 {
        try await TableStamps.endBulk(of: table, session)
        if fieldTypes[list.idField] == .integer {
            try await session.execute(
                IssuedIDs.recordLargestSQL(of: table, idField: list.idField, session.dialect),
                [.string(table)]
            )
        }
        if let sequence {
            let largest = "(SELECT MAX(\(SQL.quote(list.idField))) FROM \(SQL.quote(table)))"
            _ = try await session.rows(sequence.advanceSQL(to: largest), [])
        }
        try await StoreVersion.register(table, session)
        let version = try await StoreVersion.bump(for: table, session)
        // Every other list over the table reloads at this version as after another
        // program's write; this one's history restarts there.
        try await OutsideWrites.record(table, at: version, session)
        try await SQLChangeLog.restart(list: list.name, at: version, session)
        return version
    }
}
