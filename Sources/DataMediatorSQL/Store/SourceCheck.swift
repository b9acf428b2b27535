import DataMediator

/// Whether the lists' sources still hold what start-up checked them for, for readiness.
///
/// Another program may drop or rename a column or table a list reads, or change a
/// column's type, while the service serves it: every read of the list then fails. A
/// service started now would refuse the config (``TableSchema/checkColumns(_:added:)``,
/// ``TableSchema/checkFieldTypes(_:)``), so this one is not ready either, and says which
/// list and what it misses.
public struct SourceCheck: Sendable {
    /// What one source holds now, as the store's catalog or a statement's columns tell.
    public struct Columns: Sendable {
        /// The names of the columns `SELECT * FROM` the source gives.
        public let names: [String]
        /// The kinds of those whose kind the store knows (a table's; not a SQLite query's).
        public let kinds: [String: (kind: ColumnKind, type: String)]
        /// The rights a writable list's writes need on its table that the store's user
        /// lacks (``SourceCheck/writeRights``; PostgreSQL's, SQLite has none).
        public let withheld: [String]

        /// The columns `names`, of `kinds` where known; `withheld` the rights lacking.
        public init(names: [String], kinds: [String: (kind: ColumnKind, type: String)] = [:], withheld: [String] = []) {
            self.names = names
            self.kinds = kinds
            self.withheld = withheld
        }
    }

    /// The schemas of the lists over the store, in the config's order.
    public let schemas: [TableSchema]

    /// The check of `schemas`.
    public init(_ schemas: [TableSchema]) {
        self.schemas = schemas
    }

    /// What is not as it was, said for `GET /ready`: the service's own tables and
    /// functions that are gone, and every list whose source no longer reads or lacks a
    /// column it reads, holds one of a type its field does not fit, or (a writable list's
    /// table) withholds a right its writes need; nil when all is as start-up found it.
    ///
    /// - Parameters:
    ///   - missingServiceTables: those of ``ServiceTables/names(_:)`` the store lacks, and
    ///     of ``ServiceTables/functions(_:)`` (named with their argument types).
    ///   - withheldServiceTables: those of ``ServiceTables/names(_:)`` on which the store's
    ///     user lacks one of ``writeRights``.
    ///   - columns: what the store holds now under a schema's source; nil when the store
    ///     refuses to read it for what it names (a table or a column its query reads is
    ///     gone, or a right was revoked).
    /// - Throws: what `columns` throws (the store cannot be reached).
    public func problem(
        missingServiceTables: [String] = [],
        withheldServiceTables: [String] = [],
        columns: (TableSchema) async throws -> Columns?
    ) async throws -> String? {
        var problems: [String] = []
        if !withheldServiceTables.isEmpty {
            let one = withheldServiceTables.count == 1
            problems.append(
                "The database user lacks a right the service needs (\(Self.writeRights.joined(separator: ", "))) on "
                    + "its own " + (one ? "table " : "tables ")
                    + withheldServiceTables.map { "'\($0)'" }.joined(separator: ", ")
                    + " (another program revoked it): every list's writes need them; grant them."
            )
        }
        // A function is named with its argument types (``ServiceTables/functions(_:)``).
        let tables = missingServiceTables.filter { !$0.contains("(") }
        let functions = missingServiceTables.filter { $0.contains("(") }
        if !tables.isEmpty {
            let one = tables.count == 1
            problems.append(
                "The service's own " + (one ? "table " : "tables ") + tables.map { "'\($0)'" }.joined(separator: ", ")
                    + (one ? " is" : " are") + " gone (dropped by another program): every list's reads and writes "
                    + (one ? "need it; restore it" : "need them; restore them") + " from a backup."
            )
        }
        if !functions.isEmpty {
            let one = functions.count == 1
            problems.append(
                "The service's own " + (one ? "function " : "functions ")
                    + functions.map { "'\($0)'" }.joined(separator: ", ") + (one ? " is" : " are")
                    + " gone (dropped by another program, with any index over " + (one ? "it" : "them")
                    + "): the lists that read or write such columns need " + (one ? "it" : "them")
                    + "; restart the service, which makes " + (one ? "it" : "them") + " and the indexes again."
            )
        }
        for schema in schemas {
            if let problem = try await problem(of: schema, columns: columns) { problems.append(problem) }
        }
        return problems.isEmpty ? nil : problems.joined(separator: " ")
    }

    /// What is wrong with `schema`'s source now, if anything.
    private func problem(
        of schema: TableSchema,
        columns: (TableSchema) async throws -> Columns?
    ) async throws -> String? {
        guard let found = try await columns(schema) else {
            let what: String
            switch schema.source.kind {
            case .table(let table): what = "its table '\(table)' is gone, or the service may no longer read it."
            case .query:
                what = "its query reads a table or column that is gone, or one the service may no longer read."
            }
            return Self.cannotServe(schema.list.name) + ": \(Self.changed) \(what)"
        }
        if case .table(let table) = schema.source.kind, !found.withheld.isEmpty {
            return Self.cannotServe(schema.list.name) + ": \(Self.changed) "
                + Self.withheld(found.withheld, table: table) + "."
        }
        do {
            try schema.checkColumns(found.names)
            try schema.checkFieldTypes(found.kinds)
        } catch let error as StoreError {
            let missing = schema.missingColumns(found.names)
            if !missing.isEmpty {
                return Self.cannotServe(schema.list.name) + ": \(Self.changed) its "
                    + (schema.source.isTable ? "table" : "query")
                    + " has no column \(missing.map { "'\($0)'" }.joined(separator: ", ")), which it reads."
            }
            return Self.cannotServe(schema.list.name) + ": \(Self.changed) \(error.message)."
        }
        return nil
    }

    /// How ``problem(missingServiceTables:withheldServiceTables:columns:)`` begins what it
    /// says of a list that cannot be served (what follows is a colon and why): one
    /// spelling, which the service's readiness looks for to name the composites showing it.
    public static func cannotServe(_ list: String) -> String {
        "List '\(list)' cannot be served"
    }

    /// The rights on its table a writable list's writes need (PostgreSQL's names): they read,
    /// insert, update and delete its rows, and lock a row as an update does.
    public static let writeRights = ["SELECT", "INSERT", "UPDATE", "DELETE"]

    /// The rights on its table every table list needs at start: its rows read, and the
    /// triggers that see other programs' writes made (the views' indexes need the table's
    /// owner, ``owner``); a writable list's need ``writeRights`` too.
    public static func startRights(writable: Bool) -> [String] {
        writable ? writeRights + ["TRIGGER"] : ["SELECT", "TRIGGER"]
    }

    /// The name that stands, among withheld rights, for the table's ownership, which its
    /// indexes need.
    public static let owner = "OWNER"

    /// Why a list over `table` cannot be served when the store's user lacks `rights` (of
    /// ``startRights(writable:)``, or ``owner``) on it: said at start and by `GET /ready`.
    public static func withheld(_ rights: [String], table: String) -> String {
        let granted = rights.filter { $0 != owner }
        var lacks: [String] = []
        if !granted.isEmpty { lacks.append("lacks \(granted.joined(separator: ", ")) on its table '\(table)'") }
        if granted.count < rights.count { lacks.append("does not own its table '\(table)'") }
        let remedy =
            granted.isEmpty
            ? "make it the table's owner"
            : "grant " + (granted.count == 1 ? "it" : "them")
                + (granted.count < rights.count ? " and make it the table's owner" : "")
        return "the database user " + lacks.joined(separator: " and ")
            + " (the service needs SELECT and TRIGGER on a list's table and to own it, for its triggers and "
            + "the views' indexes, and INSERT, UPDATE and DELETE on a writable list's): " + remedy
    }

    private static let changed = "the store changed under the service (another program altered it):"

    /// What a read or write answers that the store refused for what its statement names: a
    /// table or column gone, a type changed, a right revoked, since start-up checked the
    /// list. `GET /ready` says which list and what (``problem(columns:)``).
    public static let refused = DataMediatorError(
        .unavailable,
        "The store refused the list's statement: a table or column it reads is gone or changed, or a right "
            + "on it was revoked (another program altered the store); nothing was written. GET /ready names "
            + "what is missing."
    )
}
