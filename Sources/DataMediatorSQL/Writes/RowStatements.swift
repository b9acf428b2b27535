/// The statements a writer runs on a list's table, built once: a row by id read, updated,
/// inserted and deleted, each reading back the row as the list shows it.
struct RowStatements: Sendable {
    let selectByID: String
    let updateByID: String
    /// The insert of a row with its id, every writable field and its revision, in order,
    /// then the id once more: it inserts nothing (and answers no row) when the id is taken.
    let insert: String
    /// On PostgreSQL, ``insert`` and the record of the row's integer id (``IssuedIDs``) in
    /// one statement, one round trip fewer (arguments: the insert's, then the table's
    /// name); nil on SQLite, which has no data-modifying WITH. Nothing is recorded when the
    /// insert inserted nothing.
    let insertRecordingID: String?
    /// The insert of a row whose integer id the store chooses in the statement (arguments:
    /// the table's name, every writable field, the revision): one more than the largest id
    /// the table holds or had through the service (``IssuedIDs``), or the sequence's next
    /// value when larger (``IDSequence``); after the largest 64-bit integer, the smallest
    /// free id above 0. On PostgreSQL with the record of the id (the table's name once more
    /// as the last argument), as ``insertRecordingID``; SQLite records it in a statement of
    /// its own.
    let insertIssuingID: String
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
        let into = "INSERT INTO \(table) (\(names.map(SQL.quote).joined(separator: ", ")))\(sequence?.overriding ?? "")"
        let placeholders = names.map { SQL.placeholder(of: $0, casts: casts) }
        func inserting(id idTerm: String) -> String {
            into + " VALUES (" + ([idTerm] + placeholders.dropFirst()).joined(separator: ", ") + ")" + returning
        }
        // On PostgreSQL, the insert, the record of its id and the sequence moved past it in
        // one statement.
        func recording(_ insert: String) -> String {
            let advanced =
                sequence.map { " LEFT JOIN LATERAL (\($0.advanceSQL(to: "inserted.\(id)"))) AS advanced ON true" } ?? ""
            return "WITH inserted AS (\(insert)), issued AS (\(IssuedIDs.recordSQL(ofInserted: idField))) SELECT "
                + read.map { "inserted.\(SQL.quote($0))" }.joined(separator: ", ") + " FROM inserted" + advanced
        }
        // Whether the id is taken is read in the insert itself (a round trip fewer): it
        // inserts nothing then.
        insert =
            into + " SELECT " + placeholders.joined(separator: ", ") + " WHERE NOT EXISTS (SELECT 1 FROM \(table)"
            + byID + ")" + returning
        insertRecordingID = dialect == .postgres ? recording(insert) : nil
        let known = IssuedIDs.largestSQL(of: tableName, idField: idField)
        let largest = sequence.map { $0.largestSQL(or: known) } ?? known
        let greatest = dialect == .postgres ? "GREATEST" : "max"
        let free =
            "SELECT MIN(\(id)) + 1 FROM \(table) AS taken WHERE \(id) >= 0 AND \(id) < \(Int64.max) "
            + "AND NOT EXISTS (SELECT 1 FROM \(table) AS next WHERE next.\(id) = taken.\(id) + 1)"
        let newID = """
            (SELECT CASE WHEN known.largest IS NULL THEN 1 \
            WHEN known.largest < \(Int64.max) THEN \(greatest)(known.largest, 0) + 1 \
            ELSE COALESCE((\(free)), 1) END FROM (SELECT (\(largest)) AS largest) AS known)
            """
        insertIssuingID = dialect == .postgres ? recording(inserting(id: newID)) : inserting(id: newID)
        deleteByID = "DELETE FROM \(table)" + byID
    }
}
