import Synchronization

/// The statements a writer runs on a list's table, built once: a row by id read, updated,
/// inserted and deleted, each reading back the row as the list shows it.
struct RowStatements: Sendable {
    let selectByID: String
    let updateByID: String
    let deleteByID: String
    /// The lock of the row by id a delete takes before the version lock
    /// (``StoreVersion/lock(_:reading:thenLocking:)``).
    let lockByID: String
    /// The lock of the row by id a patch or a replace takes before the version lock: one
    /// that leaves its key alone (`FOR NO KEY UPDATE`, the lock their `UPDATE` takes), so
    /// another transaction's foreign key check of the row (`FOR KEY SHARE`: an insert of a
    /// row that refers to it) neither waits for the write nor keeps it waiting.
    let lockByIDKeepingKey: String
    /// ``selectByID`` that locks the row as ``lockByID`` and ``lockByIDKeepingKey`` do
    /// (PostgreSQL only): a write's read of its row once it holds the version lock.
    let selectByIDLocking: String
    let selectByIDLockingKeepingKey: String
    /// The inserts that write every writable field.
    let inserts: Inserts

    /// The inserts of a row that write some of the writable fields (the others take their
    /// columns' defaults), each reading back the row as the list shows it.
    struct Inserts: Sendable {
        /// The insert of a row with its id, the fields written and its revision, in order,
        /// then the id once more: it inserts nothing (and answers no row) when the id is
        /// taken, which it reads itself (a round trip fewer).
        let insert: String
        /// On PostgreSQL, ``insert`` and the record of the row's integer id (``IssuedIDs``)
        /// in one statement (arguments: the insert's, then the table's name); nil on
        /// SQLite, which has no data-modifying WITH. Nothing is recorded when the insert
        /// inserted nothing.
        let insertRecordingID: String?
        /// The insert of a row whose integer id the store chooses in the statement
        /// (arguments: the table's name, the fields written, the revision): one more than
        /// the largest id the table holds or had through the service (``IssuedIDs``), or
        /// the sequence's next value when larger (``IDSequence``); after the largest id the
        /// column holds, the smallest free id above 0. On PostgreSQL with the record of the id
        /// (the table's name once more as the last argument), as ``insertRecordingID``;
        /// SQLite records it in a statement of its own.
        let insertIssuingID: String
    }

    private let table: String
    private let idField: String
    private let revisionField: String
    private let read: [String]
    private let casts: [String: String]
    private let forms: [String: String]
    private let sequence: IDSequence?
    private let idMaximum: Int64
    private let dialect: SQLDialect
    /// The writable fields, in order.
    private let fields: [String]
    private let partial = InsertsKept()

    /// The casts of the written values, to name every one refused when a write was
    /// refused for one.
    var castRefusals: CastRefusals { CastRefusals(casts: casts) }

    /// - Parameters:
    ///   - casts: the type each column's written value is cast to
    ///     (``SQL/placeholder(of:casts:)``).
    ///   - forms: the columns read as text of another type (``KeysetSQL/textForms``).
    ///   - sequence: the sequence the id column draws from (PostgreSQL only).
    ///   - idMaximum: the largest id an integer id column holds.
    init(
        table: String,
        idField: String,
        revisionField: String,
        fields: [String],
        read: [String],
        casts: [String: String] = [:],
        forms: [String: String] = [:],
        sequence: IDSequence? = nil,
        idMaximum: Int64 = .max,
        dialect: SQLDialect
    ) {
        self.idMaximum = idMaximum
        (self.table, self.idField, self.revisionField, self.read) = (table, idField, revisionField, read)
        (self.casts, self.forms, self.sequence, self.dialect, self.fields) = (casts, forms, sequence, dialect, fields)
        let quoted = SQL.quote(table)
        selectByID = "SELECT \(Self.selectList(read, forms)) FROM \(quoted)" + Self.byID(idField, casts)
        updateByID = Self.update(table, idField, revisionField, writing: fields, read, casts, forms)
        deleteByID = "DELETE FROM \(quoted)" + Self.byID(idField, casts) + " RETURNING 1"
        lockByID = "SELECT 1 FROM \(quoted)" + Self.byID(idField, casts) + " FOR UPDATE"
        lockByIDKeepingKey = "SELECT 1 FROM \(quoted)" + Self.byID(idField, casts) + " FOR NO KEY UPDATE"
        selectByIDLocking = selectByID + " FOR UPDATE"
        selectByIDLockingKeepingKey = selectByID + " FOR NO KEY UPDATE"
        inserts = Inserts(
            table: table,
            idField: idField,
            revisionField: revisionField,
            writing: fields,
            read: read,
            casts: casts,
            forms: forms,
            sequence: sequence,
            idMaximum: idMaximum,
            dialect: dialect
        )
    }

    /// The inserts that write `written` (writable fields, in ``fields``' order) and leave
    /// the other columns to their defaults: built once per set of fields (up to
    /// ``InsertsKept/capacity`` sets; past them, per write).
    func inserts(writing written: [String]) -> Inserts {
        guard written != fields else { return inserts }
        if let kept = partial.inserts.withLock({ $0[written] }) { return kept }
        let built = Inserts(
            table: table,
            idField: idField,
            revisionField: revisionField,
            writing: written,
            read: read,
            casts: casts,
            forms: forms,
            sequence: sequence,
            idMaximum: idMaximum,
            dialect: dialect
        )
        partial.inserts.withLock { kept in
            if kept.count < InsertsKept.capacity { kept[written] = built }
        }
        return built
    }

    /// The update of a row's `written` fields (writable fields, in ``fields``' order) and
    /// its revision, by id (arguments: those fields' values, then the id), reading back the
    /// row: a patch writes what it names and leaves the other columns as they are. Built
    /// once per set of fields, as ``inserts(writing:)`` are.
    func update(writing written: [String]) -> String {
        guard written != fields else { return updateByID }
        if let kept = partial.updates.withLock({ $0[written] }) { return kept }
        let built = Self.update(table, idField, revisionField, writing: written, read, casts, forms)
        partial.updates.withLock { kept in
            if kept.count < InsertsKept.capacity { kept[written] = built }
        }
        return built
    }

    private static func update(
        _ table: String,
        _ idField: String,
        _ revisionField: String,
        writing written: [String],
        _ read: [String],
        _ casts: [String: String],
        _ forms: [String: String]
    ) -> String {
        let revision = SQL.quote(revisionField)
        let assignments =
            written.map { "\(SQL.quote($0)) = \(SQL.placeholder(of: $0, casts: casts))" }
            + ["\(revision) = COALESCE(\(revision), 0) + 1"]
        return "UPDATE \(SQL.quote(table)) SET \(assignments.joined(separator: ", "))" + byID(idField, casts)
            + returning(read, forms)
    }

    /// The inserts and updates of the sets of fields that writes gave, kept by set.
    final class InsertsKept: Sendable {
        /// The most sets kept of each (a list of n fields has 2^n).
        static let capacity = 64
        let inserts = Mutex<[[String]: Inserts]>([:])
        let updates = Mutex<[[String]: String]>([:])
    }

    /// ` WHERE id = ?`: an id is bound as it is stored, through its column's cast (a
    /// uuid's text).
    private static func byID(_ idField: String, _ casts: [String: String]) -> String {
        " WHERE \(SQL.quote(idField)) = \(SQL.placeholder(of: idField, casts: casts))"
    }

    /// The columns `read` as a select list reads them (``SQL/selected(_:forms:)``).
    private static func selectList(_ read: [String], _ forms: [String: String]) -> String {
        read.map { SQL.selected($0, forms: forms) }.joined(separator: ", ")
    }

    private static func returning(_ read: [String], _ forms: [String: String]) -> String {
        " RETURNING " + selectList(read, forms)
    }
}

extension RowStatements.Inserts {
    fileprivate init(
        table tableName: String,
        idField: String,
        revisionField: String,
        writing fields: [String],
        read: [String],
        casts: [String: String],
        forms: [String: String],
        sequence: IDSequence?,
        idMaximum: Int64,
        dialect: SQLDialect
    ) {
        let table = SQL.quote(tableName)
        let id = SQL.quote(idField)
        let returning = RowStatements.returning(read, forms)
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
        insert =
            into + " SELECT " + placeholders.joined(separator: ", ") + " WHERE NOT EXISTS (SELECT 1 FROM \(table)"
            + RowStatements.byID(idField, casts) + ")" + returning
        insertRecordingID = dialect == .postgres ? recording(insert) : nil
        let known = IssuedIDs.largestSQL(of: tableName, idField: idField)
        let largest = sequence.map { $0.largestSQL(or: known, maximum: idMaximum) } ?? known
        let greatest = dialect == .postgres ? "GREATEST" : "max"
        let free =
            "SELECT MIN(\(id)) + 1 FROM \(table) AS taken WHERE \(id) >= 0 AND \(id) < \(idMaximum) "
            + "AND NOT EXISTS (SELECT 1 FROM \(table) AS next WHERE next.\(id) = taken.\(id) + 1)"
        let newID = """
            (SELECT CASE WHEN known.largest IS NULL THEN 1 \
            WHEN known.largest < \(idMaximum) THEN \(greatest)(known.largest, 0) + 1 \
            ELSE COALESCE((\(free)), 1) END FROM (SELECT (\(largest)) AS largest) AS known)
            """
        insertIssuingID = dialect == .postgres ? recording(inserting(id: newID)) : inserting(id: newID)
    }
}
