import DataMediator

/// What a SQL store checks and creates for a list's source at start-up, the same in both
/// dialects: a table created from the declared fields when missing, the revision column
/// of a writable list, every column the list reads, the rows of versions, and one index
/// per view's order.
public struct TableSchema: Sendable {
    /// The list.
    public let list: ListDefinition
    /// Where its rows live.
    public let source: StoreSource
    /// The store's flavour of SQL.
    public let dialect: SQLDialect

    /// The schema of `list` over `source` in a store of `dialect`.
    public init(list: ListDefinition, source: StoreSource, dialect: SQLDialect) {
        self.list = list
        self.source = source
        self.dialect = dialect
    }

    /// Every column the list reads (``StoreSource/columns(of:)``).
    public var columns: [String] { StoreSource.columns(of: list) }

    /// The keys of the views' changes in the log, for a list over a table.
    public var loggedKeys: LoggedViewKeys? {
        guard case .table(let table) = source.kind else { return nil }
        return LoggedViewKeys(list: list, table: table, columns: columns)
    }

    /// The statement that creates `table` from the list's declared fields: the id as
    /// primary key, the revision starting at 1, every other field of its declared type.
    public func createTable(_ table: String) -> String {
        let types = SQLTypes(dialect)
        var definitions = [
            "\(SQL.quote(list.idField)) \(types.column(for: source.fieldTypes[list.idField])) PRIMARY KEY NOT NULL"
        ]
        var seen: Set<String> = [list.idField]
        for field in columns + source.fieldTypes.keys.sorted() where seen.insert(field).inserted {
            if field == list.revisionField {
                definitions.append(revisionDefinition(field))
            } else {
                definitions.append("\(SQL.quote(field)) \(types.column(for: source.fieldTypes[field]))")
            }
        }
        return "CREATE TABLE \(SQL.quote(table)) (\(definitions.joined(separator: ", ")))"
    }

    /// The statement that adds the revision column to a writable list's table that lacks
    /// it; nil when the list is not writable. Existing rows start at revision 1.
    public func addRevisionColumn(to table: String) -> String? {
        guard list.isWritable, let revision = list.revisionField else { return nil }
        return "ALTER TABLE \(SQL.quote(table)) ADD COLUMN \(revisionDefinition(revision))"
    }

    private func revisionDefinition(_ field: String) -> String {
        "\(SQL.quote(field)) \(SQLTypes(dialect).integer) NOT NULL DEFAULT 1"
    }

    /// Checks that the source has every column the list reads and, for a writable list,
    /// every declared field (a write stores them all).
    ///
    /// - Parameter added: columns the start-up added to the table itself (the revision
    ///   column): not named among those there are, which an operator compares with the
    ///   table as it stood (the start that refuses the list keeps nothing it did).
    /// - Throws: `StoreError` naming the missing columns and those there are.
    public func checkColumns(_ available: [String], added: Set<String> = []) throws {
        let missing = missingColumns(available)
        guard missing.isEmpty else {
            let there = available.filter { !added.contains($0) }
            throw StoreError(
                list: list.name,
                "its source has no column \(missing.map { "'\($0)'" }.joined(separator: ", ")); "
                    + "the columns are \(there.map { "'\($0)'" }.joined(separator: ", "))"
            )
        }
    }

    /// The columns the list reads and, for a writable list, the declared fields (a write
    /// stores them all) that `available` lacks, each once.
    public func missingColumns(_ available: [String]) -> [String] {
        let needed = columns
        let written = list.isWritable ? source.fieldTypes.keys.sorted().filter { !needed.contains($0) } : []
        return (needed + written).filter { !available.contains($0) }
    }

    /// What a store's catalog holds under a name a list reads as a table.
    public enum Relation: Equatable, Sendable {
        /// A table of the store's user.
        case table
        /// Nothing of the name.
        case missing
        /// Something else, said as the end of "'x' is ...": "a view", "SQLite's own table".
        case other(String)
    }

    /// Checks that the list's table and every table its `versions` names is a table the
    /// store may keep triggers and indexes on, before anything is made for it (a trigger on
    /// a view or a missing table fails with SQL nobody asked for). The list's own table may
    /// be missing: it is made from its fields.
    ///
    /// - Parameter relation: what the store holds under a name.
    /// - Throws: `StoreError` naming the table and what it is.
    public func checkTables(_ relation: (String) throws -> Relation) throws {
        var own: String?
        if case .table(let table) = source.kind {
            own = table
            if case .other(let what) = try relation(table) {
                throw StoreError(
                    list: list.name,
                    "'\(table)' is \(what), not a table of yours: the service keeps triggers and indexes on a "
                        + "list's table; serve it as 'query: SELECT * FROM \(table)' (read-only), or name another table"
                )
            }
        }
        var missing: [String] = []
        for table in source.versionTables where table != own {
            switch try relation(table) {
            case .table: continue
            case .missing: missing.append(table)
            case .other(let what):
                throw StoreError(
                    list: list.name,
                    "'versions' names '\(table)', which is \(what), not a table of yours; "
                        + "name the tables whose writes change the list"
                )
            }
        }
        guard missing.isEmpty else {
            throw StoreError(
                list: list.name,
                "'versions' names \(missing.map { "'\($0)'" }.joined(separator: ", ")), which "
                    + (missing.count == 1 ? "is not a table" : "are not tables")
                    + " of the store; name the tables whose writes change the list"
            )
        }
    }

    /// The statements that register the source's tables in the store's versions and stamps
    /// (``TableStamps``), create one index per order of a view (or slice) on a table source
    /// and start a writable list's change history, each with its arguments.
    ///
    /// - Parameter indexes: the indexes the store has made for other lists over the table;
    ///   none is made that one of them serves.
    public func prepareStatements(
        keyset: KeysetSQL,
        indexes: TableIndexes = TableIndexes()
    ) -> [(sql: String, arguments: [JSONValue])] {
        var statements: [(sql: String, arguments: [JSONValue])] = []
        for table in source.allVersionTables {
            statements.append(
                ("INSERT INTO \(ServiceTables.versions) (source) VALUES (?) ON CONFLICT DO NOTHING", [.string(table)])
            )
            statements += TableStamps.prepareStatements(for: table, dialect).map { ($0, []) }
        }
        if case .table(let table) = source.kind {
            // No index another one already serves (views of one order, a slice of a view
            // led by the slice's field, another list's): every write would keep both.
            for view in list.views {
                for leading in Self.indexLeads(of: view, scope: list.scope, types: source.fieldTypes) {
                    if let index = indexes.claim(table, for: view, leading: leading, keyset: keyset) {
                        statements.append((index, []))
                    }
                }
            }
            if list.isWritable {
                // The change log is complete from the version at which writes were first
                // prepared: its history starts there.
                statements.append(
                    (
                        "INSERT INTO \(ServiceTables.history) (list, floor) VALUES (?, (\(StoreVersion.currentSQL(dialect)))) "
                            + "ON CONFLICT DO NOTHING",
                        [.string(list.name)]
                    )
                )
                // SQLite's views are registered here, in the preparing write (SQLite's one
                // writer at a time holds the version); PostgreSQL's in a write of their own
                // that takes the version lock (``SQLChangeLog/register()``), not held through
                // the preparation's index builds.
                if dialect == .sqlite, let keys = loggedKeys {
                    statements += LoggedViews.registerStatements(
                        list: list.name,
                        table: table,
                        views: list.views.map(keys.registeredKey),
                        history: list.history,
                        atStart: true,
                        dialect
                    )
                }
            }
        }
        return statements
    }

    /// The fields that lead each index of `view`: the fields of each set of its parameters
    /// a request may give (none, one, two or all three of them, the required ones always),
    /// behind the scope's field when the list has one and the fields its filter fixes
    /// (`eq`, but a `json` field's: PostgreSQL's `json` has no btree order); so a page of
    /// any slice is one range of an index. With one index a parameter, a request giving two
    /// walked the first one's whole slice for the second, and a rare filter's page walked
    /// the table.
    static func indexLeads(of view: View, scope: ListScope?, types: [String: FieldType] = [:]) -> [[String]] {
        var fixed = scope.map { [$0.field] } ?? []
        for condition in view.filter
        where condition.op == .eq && types[condition.field] != .json && !fixed.contains(condition.field) {
            fixed.append(condition.field)
        }
        let parameters = view.parameters
        // The configuration takes at most three parameters (eight sets); a view made in code
        // with more gets one index a parameter and one for all, not 2^n.
        guard parameters.count <= 3 else {
            return [fixed] + parameters.map { fixed + [$0.field] } + [fixed + parameters.map(\.field)]
        }
        return (0..<(1 << parameters.count)).compactMap { mask -> [String]? in
            let given = parameters.indices.filter { mask & (1 << $0) != 0 }
            // A view with a required parameter is never read but in a slice holding it.
            guard parameters.indices.allSatisfy({ given.contains($0) || !parameters[$0].isRequired }) else {
                return nil
            }
            return fixed + given.map { parameters[$0].field }
        }
    }

    /// The `FROM` of the list's reads: the quoted table, or the query as a subquery (the
    /// query's own line ends before the `)`, so one that ends in a `-- comment` runs).
    public var from: String {
        switch source.kind {
        case .table(let table): return SQL.quote(table)
        case .query(let query): return "(\(query)\n) AS source"
        }
    }

    /// Checks that a query list's query holds no placeholder (`?` outside quotes and
    /// comments): nothing binds one (SQLite read it as `NULL`, and PostgreSQL's numbering of
    /// the service's own placeholders made it one of theirs), so every read failed.
    ///
    /// - Throws: `StoreError` saying what to write instead.
    public func checkQueryPlaceholders() throws {
        guard case .query(let query) = source.kind, SQL.hasPlaceholder(query) else { return }
        throw Self.placeholderError(list: list.name)
    }

    /// The error of a query list whose query holds a placeholder.
    public static func placeholderError(list: String) -> StoreError {
        StoreError(
            list: list,
            "its query holds a placeholder ('?', '?1', ':name' or '$1'), which nothing binds: a query list's query "
                + "runs as written; write the value into it, or give a view a parameter ('params') over a column "
                + "it reads (for PostgreSQL's jsonb '?' operators, write jsonb_exists(column, 'key'))"
        )
    }
}
