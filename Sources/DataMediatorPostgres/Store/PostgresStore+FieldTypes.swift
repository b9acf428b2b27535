import DataMediator
import DataMediatorSQL
import PostgresNIO

extension PostgresStore {
    /// The kinds of `types`' columns for the check that a declared field fits its column
    /// (``DataMediatorSQL/TableSchema/checkFieldTypes(_:)``). Time, enum and array columns
    /// are left out: they are checked where their forms are made
    /// (``textForms(of:source:types:modifiers:enums:)``, ``arrayForms(of:source:arrays:)``),
    /// and a type the service cannot show is refused before this check.
    static func columnKinds(_ types: [String: PostgresDataType]) -> [String: (kind: ColumnKind, type: String)] {
        var kinds: [String: (kind: ColumnKind, type: String)] = [:]
        for (column, type) in types {
            guard timeKind(type) == nil, let kind = PostgresColumnKind(type) else { continue }
            let columnKind: ColumnKind
            switch kind {
            case .integer: columnKind = .integer
            case .real: columnKind = .real
            case .decimal: columnKind = .decimal
            case .boolean: columnKind = .boolean
            case .text: columnKind = type == .uuid ? .uuid : .text
            case .json: columnKind = .json
            }
            kinds[column] = (columnKind, type.description)
        }
        return kinds
    }
}
