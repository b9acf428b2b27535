/// The statements a writer runs on a list's table, built once: a row by id read, updated,
/// inserted and deleted, each reading back the row as the list shows it.
struct RowStatements: Sendable {
    let selectByID: String
    let updateByID: String
    /// The insert of a row with its id, every writable field and its revision, in order.
    let insert: String
    /// On PostgreSQL, ``insert`` and the record of the row's integer id (``IssuedIDs``) in
    /// one statement, one round trip fewer (arguments: the insert's, then the table's name
    /// and the id); nil on SQLite, which has no data-modifying WITH.
    let insertRecordingID: String?
    /// The largest integer id the table holds or had through the service (NULL when
    /// neither, ``IssuedIDs``); the next id is one more. Its argument is the table's name.
    let largestID: String
    /// The smallest free id above a non-negative one, for when the largest id is the
    /// largest 64-bit integer and one more cannot be taken.
    let freeID: String
    let deleteByID: String

    /// - Parameters:
    ///   - casts: the type each column's written value is cast to
    ///     (``SQL/placeholder(of:casts:)``).
    ///   - sequence: the sequence the id column draws from (PostgreSQL only).
    init(
        table tableName: String,
        idField: String,
        revisionField: String,
        fields: [String],
        read: [String],
        casts: [String: String] = [:],
        sequence: IDSequence? = nil,
        dialect: SQLDialect
    ) {
        let table = SQL.quote(tableName)
        let id = SQL.quote(idField)
        let revision = SQL.quote(revisionField)
        let returning = " RETURNING " + read.map(SQL.quote).joined(separator: ", ")
        // An id is bound as it is stored, through its column's cast (a uuid's text).
        let byID = " WHERE \(id) = \(SQL.placeholder(of: idField, casts: casts))"
        selectByID = "SELECT \(read.map(SQL.quote).joined(separator: ", ")) FROM \(table)" + byID
        let assignments =
            fields.map { "\(SQL.quote($0)) = \(SQL.placeholder(of: $0, casts: casts))" }
            + ["\(revision) = COALESCE(\(revision), 0) + 1"]
        updateByID = "UPDATE \(table) SET \(assignments.joined(separator: ", "))" + byID + returning
        let names = [idField] + fields + [revisionField]
        insert =
            "INSERT INTO \(table) (\(names.map(SQL.quote).joined(separator: ", ")))\(sequence?.overriding ?? "") VALUES ("
            + names.map { SQL.placeholder(of: $0, casts: casts) }.joined(separator: ", ") + ")" + returning
        // The sequence moves past the id written, in the same statement.
        let advanced =
            sequence.map { " LEFT JOIN LATERAL (\($0.advanceSQL(to: "inserted.\(id)"))) AS advanced ON true" } ?? ""
        insertRecordingID =
            dialect == .postgres
            ? "WITH inserted AS (\(insert)), issued AS (\(IssuedIDs.recordSQL(dialect))) SELECT "
                + read.map { "inserted.\(SQL.quote($0))" }.joined(separator: ", ") + " FROM inserted" + advanced
            : nil
        let largest = IssuedIDs.largestSQL(of: tableName, idField: idField)
        largestID = sequence.map { $0.largestSQL(or: largest) } ?? largest
        freeID =
            "SELECT MIN(\(id)) + 1 FROM \(table) AS taken WHERE \(id) >= 0 AND \(id) < \(Int64.max) "
            + "AND NOT EXISTS (SELECT 1 FROM \(table) AS next WHERE next.\(id) = taken.\(id) + 1)"
        deleteByID = "DELETE FROM \(table)" + byID
    }
}
