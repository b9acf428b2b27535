/// The largest integer id each table's items have had through the service, so that an id
/// is never given again after its item is deleted.
///
/// A client that compares cells by `id` and `rev` (a reload diff) would otherwise take a
/// new item at a deleted item's id, whose `rev` starts at 1 again, for the old one
/// unchanged. The table's own largest id counts too, so rows written past the service are
/// never given again while they exist.
enum IssuedIDs {
    /// Per source table, the largest integer id an item written through the service had.
    static let table = "data_mediator_ids"

    /// The statement that creates the table when missing.
    static func schema(_ dialect: SQLDialect) -> [String] {
        let types = SQLTypes(dialect)
        return [
            """
            CREATE TABLE IF NOT EXISTS \(table) (
                source \(types.text) PRIMARY KEY NOT NULL,
                largest \(types.integer) NOT NULL
            )
            """
        ]
    }

    /// The largest id `source` (quoted) holds or had through the service, NULL when neither;
    /// its one argument is the source table's name.
    static func largestSQL(of source: String, idField: String) -> String {
        "SELECT MAX(largest) FROM (SELECT MAX(\(SQL.quote(idField))) AS largest FROM \(SQL.quote(source)) "
            + "UNION ALL SELECT largest FROM \(table) WHERE source = ?) AS known"
    }

    /// Records the id of the row a data-modifying `WITH` part named `inserted` wrote
    /// (PostgreSQL; argument: the table's name); the record only grows.
    static func recordSQL(ofInserted idField: String) -> String {
        "INSERT INTO \(table) (source, largest) SELECT ?, inserted.\(SQL.quote(idField)) FROM inserted "
            + "ON CONFLICT (source) DO UPDATE SET largest = GREATEST(\(table).largest, EXCLUDED.largest)"
    }

    /// Records an id given to an item of a table (arguments: the table's name, the id);
    /// the record only grows.
    static func recordSQL(_ dialect: SQLDialect) -> String {
        "INSERT INTO \(table) (source, largest) VALUES (?, ?) " + onConflict(dialect)
    }

    /// Records the largest id `source` (unquoted) holds now, as after an import (argument:
    /// the table's name); the record only grows, and an empty table records nothing.
    static func recordLargestSQL(of source: String, idField: String, _ dialect: SQLDialect) -> String {
        "INSERT INTO \(table) (source, largest) SELECT source, largest FROM (SELECT CAST(? AS TEXT) AS source, "
            + "MAX(\(SQL.quote(idField))) AS largest FROM \(SQL.quote(source))) AS found WHERE largest IS NOT NULL "
            + onConflict(dialect)
    }

    /// The upsert that keeps the larger of the recorded id and the new one.
    private static func onConflict(_ dialect: SQLDialect) -> String {
        let larger =
            switch dialect {
            case .sqlite: "max(\(table).largest, excluded.largest)"
            case .postgres: "GREATEST(\(table).largest, EXCLUDED.largest)"
            }
        return "ON CONFLICT (source) DO UPDATE SET largest = \(larger)"
    }
}
