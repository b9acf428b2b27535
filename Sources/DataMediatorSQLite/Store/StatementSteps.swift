import GRDB

/// A statement's rows, each handed over as SQLite's statement handle to read its columns
/// from by index.
///
/// GRDB's `Row` cursor builds a dictionary of the statement's column names each time one
/// is made, for lookups by name that a page read, which reads its columns by index, never
/// makes. This cursor only steps the statement.
/// Read a row's columns before the next step: the handle moves on with it.
final class StatementSteps: DatabaseCursor {
    /// The handle of the statement, positioned on the current row.
    typealias Element = SQLiteStatement

    /// The statement stepped (the protocol's name for it).
    let _statement: Statement
    /// Whether the statement answered its last row (the protocol's name for it).
    var _isDone = false

    /// Binds `arguments` to `statement` (resetting it) for stepping through its rows.
    init(_ statement: Statement, arguments: StatementArguments) throws {
        _statement = statement
        try statement.setArguments(arguments)
    }

    /// The statement's handle, positioned on the row the step reached.
    func _element(sqliteStatement: SQLiteStatement) -> SQLiteStatement {
        sqliteStatement
    }
}
