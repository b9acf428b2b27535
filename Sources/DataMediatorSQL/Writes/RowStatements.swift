/// The statements a writer runs on a list's table, built once: a row by id read, updated,
/// inserted and deleted, each reading back the row as the list shows it.
struct RowStatements: Sendable {
    let selectByID: String
    let updateByID: String
    /// The insert of a row with its id, every writable field and its revision, in order.
    let insert: String
    /// The next integer id: one more than the largest.
    let nextID: String
    let deleteByID: String

    init(table: String, idField: String, revisionField: String, fields: [String], read: [String]) {
        let table = SQL.quote(table)
        let id = SQL.quote(idField)
        let revision = SQL.quote(revisionField)
        let returning = " RETURNING " + read.map(SQL.quote).joined(separator: ", ")
        selectByID = "SELECT \(read.map(SQL.quote).joined(separator: ", ")) FROM \(table) WHERE \(id) = ?"
        let assignments = fields.map { "\(SQL.quote($0)) = ?" } + ["\(revision) = COALESCE(\(revision), 0) + 1"]
        updateByID = "UPDATE \(table) SET \(assignments.joined(separator: ", ")) WHERE \(id) = ?" + returning
        let names = [idField] + fields + [revisionField]
        insert =
            "INSERT INTO \(table) (\(names.map(SQL.quote).joined(separator: ", "))) VALUES ("
            + Array(repeating: "?", count: names.count).joined(separator: ", ") + ")" + returning
        nextID = "SELECT COALESCE(MAX(\(id)), 0) + 1 FROM \(table)"
        deleteByID = "DELETE FROM \(table) WHERE \(id) = ?"
    }
}
