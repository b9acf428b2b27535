import DataMediator
import DataMediatorSQL
import PostgresNIO

extension PostgresStore {
    /// Refuses the declared fields whose columns hold another type than the field's: a
    /// `text` column under an `integer` field showed `"x"` where a number is promised, a
    /// `double precision` one `1.5`, and writes, filters and parameters bound the declared
    /// type against the column (`text = bigint` has no operator). Time, enum and array
    /// columns are checked where their forms are made (``textForms(of:source:types:modifiers:enums:)``,
    /// ``arrayForms(of:source:arrays:)``), and a type the service cannot show is refused
    /// before this check.
    ///
    /// - Throws: `StoreError` naming every such field, its column's type and the types
    ///   that fit it.
    static func checkFieldTypes(
        of list: ListDefinition,
        source: StoreSource,
        types: [String: PostgresDataType]
    ) throws {
        var misfits: [String] = []
        for (field, declared) in source.fieldTypes.sorted(by: { $0.key < $1.key }) {
            guard let type = types[field], timeKind(type) == nil, let kind = PostgresColumnKind(type) else { continue }
            let fitting = fieldTypes(fitting: kind, uuid: type == .uuid)
            if fitting.contains(declared) { continue }
            misfits.append(
                "field '\(field)' (\(declared.rawValue)) is over a \(type.description.lowercased()) column: "
                    + "declare it \(fitting.map(\.rawValue).joined(separator: " or "))"
            )
        }
        guard !misfits.isEmpty else { return }
        throw StoreError(
            list: list.name,
            misfits.joined(separator: "; ")
                + (source.isTable
                    ? ", or serve the table through a query list that casts the column"
                    : ", or cast the column in the query")
        )
    }

    /// The field types a column of `kind` is shown and written as (docs/configuration.md,
    /// "PostgreSQL columns"): a whole number is also a number, a `numeric` either, and text
    /// holds a json field's JSON text (the tables the service makes keep json so).
    private static func fieldTypes(fitting kind: PostgresColumnKind, uuid: Bool) -> [FieldType] {
        switch kind {
        case .integer: return [.integer, .number]
        case .real: return [.number]
        case .decimal: return [.number, .integer]
        case .boolean: return [.boolean]
        case .text: return uuid ? [.string] : [.string, .json]
        case .json: return [.json]
        }
    }
}
