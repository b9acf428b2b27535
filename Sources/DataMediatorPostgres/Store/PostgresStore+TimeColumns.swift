import DataMediator
import DataMediatorSQL
import Logging
import PostgresNIO

extension PostgresStore {
    /// The kind of a time column's type, nil for another type.
    static func timeKind(_ type: PostgresDataType) -> TimeText.Kind? {
        switch type {
        case .timestamptz: return .timestamptz
        case .timestamp: return .timestamp
        case .date: return .date
        default: return nil
        }
    }

    /// The text forms (``DataMediatorSQL/KeysetSQL/textForms``) of `list`'s time columns,
    /// each keeping the fractional digits its column declares (`modifiers`, a table's;
    /// a query list's times show six).
    ///
    /// - Throws: `StoreError` when a time column is the list's id (ids are compared and
    ///   addressed exactly: a time has many spellings) or its field is declared another type
    ///   than string (a time is written and shown as ISO 8601 text).
    static func timeForms(
        of list: ListDefinition,
        source: StoreSource,
        types: [String: PostgresDataType],
        modifiers: [String: Int32]
    ) throws -> [String: String] {
        var forms: [String: String] = [:]
        for (column, type) in types {
            guard let kind = timeKind(type) else { continue }
            if column == list.idField {
                throw StoreError(
                    list: list.name,
                    "the id column '\(column)' is a \(kind.rawValue): an id is an integer, text or a uuid"
                )
            }
            if let declared = source.fieldTypes[column], declared != .string {
                throw StoreError(
                    list: list.name,
                    "field '\(column)' is declared \(declared.rawValue) but its column is a \(kind.rawValue), "
                        + "which the service shows as ISO 8601 text: declare it string"
                )
            }
            forms[column] = TimeText.form(
                of: column,
                kind: kind,
                digits: TimeText.digits(typeModifier: modifiers[column] ?? -1)
            )
        }
        return forms
    }

    /// The type modifier of each column of `table` (`atttypmod`: a time's fractional digits).
    static func typeModifiers(
        of table: String,
        _ connection: PostgresConnection,
        logger: Logger
    ) async throws -> [String: Int32] {
        let rows = try await connection.query(
            """
            SELECT attname::text, atttypmod FROM pg_attribute
            WHERE attrelid = to_regclass(\(SQL.quote(table))) AND attnum > 0 AND NOT attisdropped
            """,
            logger: logger
        )
        var modifiers: [String: Int32] = [:]
        for try await (name, modifier) in rows.decode((String, Int32).self) { modifiers[name] = modifier }
        return modifiers
    }
}
