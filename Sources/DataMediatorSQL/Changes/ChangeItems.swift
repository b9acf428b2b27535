import DataMediator

/// The items a write logs, kept once per list and version beside the change log's rows,
/// of which a write logs one per view and slice key of the list: the item after the write
/// and the item before it. A row of the log names its placement in its view; its item and
/// item before are this table's, by its operation (an `insert` has no item before in its
/// view, a `delete` no item after). Rows logged before this table existed keep theirs
/// inline, in the log's own `item` and `old_item`, which are read first.
enum ChangeItems {
    /// The table: one row per list and version a write logged changes at.
    static let table = "data_mediator_change_items"

    /// Its definition: rows with row ids in both stores (items may be large, which a table
    /// kept in its key's order stores poorly in SQLite).
    static func schema(_ dialect: SQLDialect) -> [String] {
        let types = SQLTypes(dialect)
        return [
            """
            CREATE TABLE IF NOT EXISTS \(table) (
                list \(types.text) NOT NULL,
                version \(types.integer) NOT NULL,
                item \(types.text),
                old_item \(types.text),
                bytes \(types.integer) NOT NULL,
                PRIMARY KEY (list, version)
            )
            """
        ]
    }

    /// The join that gives a read of the log aliased `c` its items, aliased `i`.
    static let joinSQL = "LEFT JOIN \(table) AS i ON i.list = c.list AND i.version = c.version"

    /// The item after a change of the log aliased `c` (joined by ``joinSQL``): none for a
    /// `delete` or a `reload`.
    static let itemSQL = "CASE WHEN c.op IN ('insert', 'update', 'move') THEN COALESCE(c.item, i.item) END"

    /// The item before a change of the log aliased `c` (joined by ``joinSQL``): none for an
    /// `insert` or a `reload`.
    static let oldItemSQL = "CASE WHEN c.op IN ('update', 'move', 'delete') THEN COALESCE(c.old_item, i.old_item) END"

    /// The statement that keeps a write's items at `version` (a SQL term; arguments: the
    /// list, those of `version`, then ``arguments(item:old:)``), with their size in bytes,
    /// which a read's budget sums (``ChangeReadBudget``) without reading the items.
    static func insertSQL(version: String) -> String {
        """
        INSERT INTO \(table) (list, version, item, old_item, bytes) VALUES (?, \(version), ?, ?, ?)
        ON CONFLICT (list, version) DO UPDATE SET
            item = excluded.item, old_item = excluded.old_item, bytes = excluded.bytes
        """
    }

    /// The item and the item before it (JSON text, or null), then their size in bytes.
    static func arguments(item: JSONValue, old: JSONValue) -> [JSONValue] {
        let bytes = [item, old].reduce(0) { $0 + ($1.stringValue?.utf8.count ?? 0) }
        return [item, old, .integer(Int64(bytes))]
    }

    /// Forgets a list's items at or below a version (arguments: the list, then those of
    /// `bound`), as ``SQLChangeLog/trimSQL(through:)`` does its changes.
    static func trimSQL(through bound: String) -> String {
        "DELETE FROM \(table) WHERE list = ? AND version <= \(bound)"
    }
}
