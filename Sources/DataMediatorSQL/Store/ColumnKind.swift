import DataMediator

/// How a store's column holds values, for the rule both SQL stores follow that a declared
/// field fits its column (``TableSchema/checkFieldTypes(_:)``).
public enum ColumnKind: Sendable, Hashable {
    /// Whole numbers (PostgreSQL's integer types, SQLite's INTEGER affinity).
    case integer
    /// Floating-point numbers (PostgreSQL's `real`, `double precision`, SQLite's REAL affinity).
    case real
    /// Exact numbers (PostgreSQL's `numeric`, SQLite's NUMERIC affinity, which keeps text
    /// that reads as a number as that number).
    case decimal
    /// PostgreSQL's `boolean`.
    case boolean
    /// Text.
    case text
    /// PostgreSQL's `uuid`: text of one form, which no JSON text is.
    case uuid
    /// PostgreSQL's `json` and `jsonb`, a SQLite column declared `JSON`.
    case json
    /// A column that keeps any value as given (SQLite's BLOB affinity, a column declared
    /// with no type; SQLite's date and time types, kept as text or numbers).
    case any

    /// The kind of a SQLite column declared `type`, by SQLite's rules for a column's
    /// affinity (sqlite.org/datatype3.html, 3.1); GRDB does not say a column's affinity. A
    /// date or time type (NUMERIC affinity) keeps times as text or numbers, as the table
    /// writes them, so it takes any field; a `JSON` type (NUMERIC affinity too) holds a
    /// json field.
    public init(sqliteType type: String) {
        let type = type.uppercased()
        switch Self.sqliteAffinity(type) {
        case .integer: self = .integer
        case .text: self = .text
        case .blob: self = .any
        case .real: self = .real
        case .numeric:
            if ["DATE", "TIME"].contains(where: type.contains) {
                self = .any
            } else if type.contains("JSON") {
                // NUMERIC affinity, which keeps JSON text as text: a json field's column.
                self = .json
            } else {
                self = .decimal
            }
        }
    }

    /// SQLite's column affinities (sqlite.org/datatype3.html, 3).
    public enum SQLiteAffinity: Sendable {
        case integer, text, blob, real
        /// Keeps text that reads as a number as that number (``KeptText``).
        case numeric
    }

    /// The affinity SQLite gives a column declared `type` (its rules of 3.1, in order).
    public static func sqliteAffinity(_ type: String) -> SQLiteAffinity {
        let type = type.uppercased()
        if type.contains("INT") { return .integer }
        if ["CHAR", "CLOB", "TEXT"].contains(where: type.contains) { return .text }
        if type.isEmpty || type.contains("BLOB") { return .blob }
        if ["REAL", "FLOA", "DOUB"].contains(where: type.contains) { return .real }
        return .numeric
    }

    /// The field types a column of this kind is shown and written as in `dialect` (docs/
    /// configuration.md, "Field types"): a whole number is also a number, an exact number
    /// either, text holds a json field's JSON text (the tables the service makes keep json
    /// so), and SQLite keeps a boolean as the whole number 0 or 1.
    public func fitting(_ dialect: SQLDialect) -> [FieldType] {
        let sqliteBoolean: [FieldType] = dialect == .sqlite ? [.boolean] : []
        switch self {
        case .integer: return [.integer, .number] + sqliteBoolean
        case .real: return [.number]
        case .decimal: return [.number, .integer] + sqliteBoolean
        case .boolean: return [.boolean]
        case .text: return [.string, .json]
        case .uuid: return [.string]
        case .json: return [.json]
        case .any: return FieldType.allCases
        }
    }
}

extension TableSchema {
    /// Refuses the declared fields whose columns hold another type than the field's: a
    /// text column under an `integer` field showed `"5"` where a number is promised, an
    /// integer one under a `string` id took `PUT /items/007` as item 7, and writes,
    /// filters and parameters bound the declared type against the column.
    ///
    /// - Parameter columns: each column's kind and its type as the store names it; a
    ///   column not given is not checked (a type checked elsewhere).
    /// - Throws: `StoreError` naming every such field, its column's type and the types
    ///   that fit it.
    public func checkFieldTypes(_ columns: [String: (kind: ColumnKind, type: String)]) throws {
        var misfits: [String] = []
        for (field, declared) in source.fieldTypes.sorted(by: { $0.key < $1.key }) {
            guard let column = columns[field] else { continue }
            let fitting = column.kind.fitting(dialect)
            if fitting.contains(declared) { continue }
            misfits.append(
                "field '\(field)' (\(declared.rawValue)) is over \(Self.article(column.type))\(column.type.lowercased()) column: "
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

    /// Checks the columns (``checkColumns(_:added:)``) and their kinds (``checkFieldTypes(_:)``)
    /// together, so that one refusal names every missing column and every field over a
    /// column of another type: a config's author mends them all at once, not one a run.
    ///
    /// - Parameter added: columns the start-up added itself (``checkColumns(_:added:)``).
    /// - Throws: `StoreError` naming both kinds of problem.
    public func checkColumnsAndTypes(
        _ available: [String],
        kinds: [String: (kind: ColumnKind, type: String)],
        added: Set<String> = []
    ) throws {
        var problems: [String] = []
        for check in [{ try checkColumns(available, added: added) }, { try checkFieldTypes(kinds) }] {
            do {
                try check()
            } catch let error as StoreError {
                problems.append(error.message)
            }
        }
        guard !problems.isEmpty else { return }
        throw StoreError(list: list.name, problems.joined(separator: "; "))
    }

    /// "an " before a type whose name begins with a vowel's sound (`an integer column`,
    /// `an unsigned big int column`), "a " before others (`a text column`, `a uuid column`).
    static func article(_ type: String) -> String {
        let name = type.lowercased()
        return ["a", "e", "i", "o"].contains(name.prefix(1)) || name.hasPrefix("un") ? "an " : "a "
    }
}
