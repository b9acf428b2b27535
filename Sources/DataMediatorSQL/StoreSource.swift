import DataMediator

/// Where a list's rows live in a SQL store (SQLite or PostgreSQL), and how its stored
/// values become JSON.
public struct StoreSource: Sendable, Hashable {
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
    /// The tables whose writes change this source (a table source counts its own table
    /// whether listed or not).
    public let versionTables: [String]

    /// Creates a source.
    public init(kind: Kind, fieldTypes: [String: FieldType] = [:], versionTables: [String] = []) {
        self.kind = kind
        self.fieldTypes = fieldTypes
        self.versionTables = versionTables
    }

    /// Whether the source is a table (whose views the store indexes), not a query.
    public var isTable: Bool {
        if case .table = kind { return true }
        return false
    }

    /// The tables whose writes change this source, its own table first.
    public var allVersionTables: [String] {
        guard case .table(let table) = kind, !versionTables.contains(table) else { return versionTables }
        return [table] + versionTables
    }

    /// The table and revision field that writes to `list` go to; nil when the list is not
    /// writable.
    ///
    /// - Throws: `StoreError` when the list is writable but over a query, or has no
    ///   revision field.
    public func writeTarget(of list: ListDefinition) throws -> (table: String, revisionField: String)? {
        guard list.isWritable else { return nil }
        guard case .table(let table) = kind else {
            throw StoreError(list: list.name, "a list over a query is read-only; remove 'writable: true'")
        }
        guard let revision = list.revisionField else {
            throw StoreError(list: list.name, "a writable list needs a revision column: add 'revision: rev'")
        }
        return (table, revision)
    }

    /// Every column a list reads: id, revision, the scope's field, and each view's sort,
    /// section, filter, parameters, cell type and exposed fields, each once, in that order
    /// (a write places an item in the slices its values select).
    public static func columns(of list: ListDefinition) -> [String] {
        var columns = [list.idField]
        if let revision = list.revisionField { columns.append(revision) }
        if let scope = list.scope { columns.append(scope.field) }
        for view in list.views {
            columns += view.sort.map(\.field)
            if let section = view.section { columns.append(section.field) }
            columns += view.filter.map(\.field)
            columns += view.parameters.map(\.field)
            if case .field(let field, _, _) = view.cellType { columns.append(field) }
            columns += view.fields
        }
        var seen = Set<String>()
        return columns.filter { seen.insert($0).inserted }
    }
}
