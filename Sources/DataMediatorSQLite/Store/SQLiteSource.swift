import DataMediator
import Foundation

/// Where a list's rows live in SQLite, and how its stored values become JSON.
public struct SQLiteSource: Sendable, Hashable {
    /// The kind of source.
    public enum Kind: Sendable, Hashable {
        /// A table; the store creates it from the declared fields when it is missing, and an
        /// index for each view's order.
        case table(String)
        /// A read-only `SELECT` (an aggregate, say); pages wrap it in a subquery.
        case query(String)
    }

    /// The table or query.
    public let kind: Kind
    /// The declared type of each field; fields not declared are shown as stored.
    public let fieldTypes: [String: FieldType]
    /// The tables whose versions add up to this source's version (a table source counts
    /// its own table whether listed or not).
    public let versionTables: [String]

    /// Creates a source.
    public init(kind: Kind, fieldTypes: [String: FieldType] = [:], versionTables: [String] = []) {
        self.kind = kind
        self.fieldTypes = fieldTypes
        self.versionTables = versionTables
    }

    /// The tables that make up the version.
    var allVersionTables: [String] {
        guard case .table(let table) = kind, !versionTables.contains(table) else { return versionTables }
        return [table] + versionTables
    }
}

/// Quoting of SQL identifiers; names come from the config, never from requests.
enum SQL {
    /// `name` as a quoted identifier.
    static func quote(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
