import DataMediator
import DataMediatorSQL
import GRDB

/// A provider over a SQLite table or read-only query, paging by keyset on the view's index.
///
/// Every answer is read in one read transaction, so its items and version agree. The
/// page path runs one indexed range query and one version lookup: no `OFFSET`, no `COUNT`.
public struct SQLiteDataProvider: DataProvider, SectionInfoProvider {
    private let database: any DatabaseReader
    /// The connections a one-statement page is read on without a thread switch.
    private let pageReaders: SQLitePageReaders
    /// Whether every view has an index on its sort (a table source): only then is finding
    /// a section by a seek cheap; over a query, each seek would read the whole query.
    private let viewsAreIndexed: Bool
    private let from: String
    private let columns: [String]
    private let selectList: String
    private let layout: ItemLayout
    private let columnTypes: [FieldType?]
    private let idField: String
    private let fieldTypes: [String: FieldType]
    private let keyset: KeysetSQL
    /// The tables whose writes change the list's items (its own table, and the tables a
    /// query reads as its config's `versions` names them).
    private let versionTables: [String]
    /// The query for the store's version, and the one for the store's version at the last
    /// write to `versionTables` (nil when there are none).
    private static let versionSQL = "SELECT COALESCE(SUM(version), 0) FROM \(SQLiteStore.versionTable)"
    private let lastChangeSQL: String?
    /// The SQL of windows, built on first use.
    private let windows: WindowQueries

    init(
        database: any DatabaseReader,
        pageReaders: SQLitePageReaders,
        viewsAreIndexed: Bool,
        from: String,
        columns: [String],
        idField: String,
        fieldTypes: [String: FieldType],
        notNullColumns: Set<String>,
        versionTables: [String]
    ) {
        self.database = database
        self.pageReaders = pageReaders
        self.viewsAreIndexed = viewsAreIndexed
        self.from = from
        self.columns = columns
        self.selectList = columns.map(SQL.quote).joined(separator: ", ")
        self.layout = ItemLayout(columns)
        self.columnTypes = columns.map { fieldTypes[$0] }
        self.idField = idField
        self.fieldTypes = fieldTypes
        self.keyset = KeysetSQL(notNullColumns: notNullColumns)
        self.windows = WindowQueries(
            columns: columns,
            from: from,
            keyset: keyset,
            trailingColumn: "(\(Self.versionSQL))"
        )
        self.versionTables = versionTables
        let marks = Array(repeating: "?", count: versionTables.count).joined(separator: ", ")
        self.lastChangeSQL =
            versionTables.isEmpty
            ? nil
            : "SELECT COALESCE(MAX(changed_at), 0) FROM \(SQLiteStore.versionTable) WHERE source IN (\(marks))"
    }

    /// Up to `limit` items after (or from) `start`: one indexed range read after another,
    /// in view order, until the window is full.
    public func window(of view: View, from start: Position?, inclusive: Bool, limit: Int) async throws -> Window {
        let queries = windowQueries(of: view, from: start, inclusive: inclusive)
        let limit = max(0, limit)
        if queries.count == 1, limit > 0 {
            // One statement reads the items and, in its last column, the store's version:
            // SQLite runs a statement in one snapshot, so no transaction is opened around
            // it. An empty answer has no row to carry the version: read again below.
            let sql = queries[0].sql
            let arguments = queries[0].arguments + [limit.databaseValue]
            var answer = try pageReaders.read { db in try fetch(db, sql: sql, arguments: arguments) }
            if answer == nil {
                answer = try await database.unsafeRead { db in try fetch(db, sql: sql, arguments: arguments) }
            }
            if let answer, let version = answer.version { return Window(items: answer.items, version: version) }
        }
        return try await database.read { db in
            Window(items: try read(queries, limit: limit, in: db), version: try version(db))
        }
    }

    /// Up to `limit` items of `view` strictly before `position`, nearest first, read in
    /// the caller's transaction (a write's, to place the item it wrote).
    func items(before position: Position, in view: View, limit: Int, db: Database) throws -> [Item] {
        try read(windowQueries(of: view.reversed, from: position, inclusive: false), limit: limit, in: db)
    }

    /// The last item of `view` before the first item of the section with `key`, nil when
    /// that section is the view's first: one read on the view's index, however long the
    /// section is. The view's section field leads its sort (``View/sectionProblem()``).
    func lastItem(beforeSection key: JSONValue, in view: View, db: Database) throws -> Item? {
        for query in beforeSectionQueries(key, in: view) {
            if let item = try fetch(db, sql: query.sql, arguments: query.arguments).items.first { return item }
        }
        return nil
    }

    /// The statements of ``lastItem(beforeSection:in:db:)``, one per index range, in order.
    func beforeSectionQueries(_ key: JSONValue, in view: View) -> [(sql: String, arguments: [DatabaseValue])] {
        let (conditions, arguments) = keyset.filter(view)
        let order = " ORDER BY \(keyset.orderBy(view.reversed)) LIMIT 1"
        return keyset.beforeSection(key, in: view).map { range in
            (
                "SELECT \(selectList) FROM \(from)\(SQL.whereClause(conditions + [range.sql]))" + order,
                (arguments + range.arguments).map(\.databaseValue)
            )
        }
    }

    /// The rows of window queries, one range after another, until `limit` are read.
    private func read(
        _ queries: [(sql: String, arguments: [DatabaseValue])],
        limit: Int,
        in db: Database
    ) throws
        -> [Item]
    {
        var items: [Item] = []
        for query in queries where items.count < limit {
            items += try fetch(db, sql: query.sql, arguments: query.arguments + [(limit - items.count).databaseValue])
                .items
        }
        return items
    }

    /// The version of the list's source now (the sum of its tables' versions).
    public func currentVersion() async throws -> Int64 {
        try await database.read { db in try version(db) }
    }

    /// The version of the list's source in the caller's transaction.
    func currentVersion(_ db: Database) throws -> Int64 {
        try version(db)
    }

    /// The SQL of a window, one statement per index range, each ending in `LIMIT ?`.
    func windowQueries(
        of view: View,
        from start: Position?,
        inclusive: Bool
    ) -> [(
        sql: String, arguments: [DatabaseValue]
    )] {
        windows.queries(of: view, from: start, inclusive: inclusive).map { query in
            (query.sql, query.arguments.map { $0.databaseValue })
        }
    }

    /// The most sections before an item that ``locate(id:in:)`` counts one index seek at a
    /// time; beyond it, one query counts the distinct section keys before the item.
    static let maximumSectionSeeks = 10_000

    /// The item with `id` in the view and its place, from counts of the rows before it.
    public func locate(id: String, in view: View) async throws -> Location? {
        try await locate(id: id, in: view, maximumSectionSeeks: Self.maximumSectionSeeks)
    }

    /// ``locate(id:in:)``, counting at most `maximumSectionSeeks` sections a seek at a time.
    func locate(id: String, in view: View, maximumSectionSeeks: Int) async throws -> Location? {
        var (conditions, arguments) = keyset.databaseFilter(view)
        let filterConditions = conditions
        let filterArguments = arguments
        // Ids that are integers in the table arrive as strings: match either spelling.
        if let whole = Int64(id), String(whole) == id {
            conditions.append("(\(SQL.quote(idField)) = ? OR \(SQL.quote(idField)) = ?)")
            arguments += [whole.databaseValue, id.databaseValue]
        } else {
            conditions.append("\(SQL.quote(idField)) = ?")
            arguments.append(id.databaseValue)
        }
        let itemSQL = "SELECT \(selectList) FROM \(from)\(SQL.whereClause(conditions)) LIMIT 2"
        let itemArguments = arguments
        return try await database.read { db in
            guard
                let item = try fetch(db, sql: itemSQL, arguments: itemArguments).items
                    .first(where: { $0[idField].idString == id })
            else { return nil }
            let before = keyset.before(view.position(of: item), in: view)
            let beforeWhere = SQL.whereClause(filterConditions + [before.sql])
            let beforeArguments = filterArguments + before.arguments.map(\.databaseValue)
            let position = try count(db, sql: "SELECT COUNT(*) FROM \(from)\(beforeWhere)", arguments: beforeArguments)
            var sectionIndex = 0
            var itemIndex = position
            if let rule = view.section {
                let stored = rule.key(for: item[rule.field])
                if let place = try sectionPlace(
                    key: stored,
                    position: position,
                    in: view,
                    maximumSeeks: maximumSectionSeeks,
                    db: db
                ) {
                    (sectionIndex, itemIndex) = place
                } else {
                    // Sections are told apart by their id (text), as pages group them.
                    let key = "COALESCE(CAST((\(keyset.sectionKey(rule))) AS TEXT), '')"
                    let ownKey = "COALESCE(CAST(? AS TEXT), '')"
                    sectionIndex = try count(
                        db,
                        sql: "SELECT COUNT(DISTINCT \(key)) FROM \(from)\(beforeWhere) AND \(key) <> \(ownKey)",
                        arguments: beforeArguments + [stored.databaseValue]
                    )
                    itemIndex = try count(
                        db,
                        sql: "SELECT COUNT(*) FROM \(from)\(beforeWhere) AND \(key) = \(ownKey)",
                        arguments: beforeArguments + [stored.databaseValue]
                    )
                }
            }
            return Location(
                item: item,
                position: position,
                sectionIndex: sectionIndex,
                itemIndex: itemIndex,
                version: try version(db)
            )
        }
    }

    /// The index of the section with `key` among the view's sections, and the index in it
    /// of the item at `position`, read on the view's index: the sections before it one seek
    /// each (``lastItem(beforeSection:in:db:)``, as writes place items), and the rows
    /// before its first row by a count of index ranges, without computing any row's
    /// section key. Nil when there are more than `maximumSeeks` sections before it, when a
    /// section on the way is the NULL or the empty one (which pages show as one section),
    /// or when the source is a query (no index to seek on).
    func sectionPlace(
        key: JSONValue,
        position: Int,
        in view: View,
        maximumSeeks: Int,
        db: Database
    ) throws -> (section: Int, item: Int)? {
        guard viewsAreIndexed, let rule = view.section, view.sort.first?.field == rule.field else { return nil }
        var sections = 0
        var current = key
        while true {
            guard current != .null, current != .string("") else { return nil }
            guard let previous = try lastItem(beforeSection: current, in: view, db: db) else { break }
            sections += 1
            guard sections <= maximumSeeks else { return nil }
            current = rule.key(for: previous[rule.field])
        }
        let (conditions, arguments) = keyset.databaseFilter(view)
        var rowsBefore = 0
        for range in keyset.beforeSection(key, in: view) {
            rowsBefore += try count(
                db,
                sql: "SELECT COUNT(*) FROM \(from)\(SQL.whereClause(conditions + [range.sql]))",
                arguments: arguments + range.arguments.map(\.databaseValue)
            )
        }
        return (sections, position - rowsBefore)
    }

    /// The view's sections and counts: section by section on the view's index (see
    /// ``sectionCountsBySeeks(of:maximumSections:db:)``), else by one grouped query in the
    /// view's order.
    public func sectionCounts(of view: View) async throws -> SectionCounts {
        // As many sections as ``locate(id:in:)`` seeks over; a view with more is counted by
        // one grouped query.
        try await sectionCounts(of: view, maximumSections: Self.maximumSectionSeeks)
    }

    /// ``sectionCounts(of:)``, reading at most `maximumSections` sections one at a time.
    func sectionCounts(of view: View, maximumSections: Int) async throws -> SectionCounts {
        let (conditions, arguments) = keyset.databaseFilter(view)
        let whereClause = SQL.whereClause(conditions)
        return try await database.read { db in
            guard let rule = view.section, let first = view.sort.first else {
                let total = try count(db, sql: "SELECT COUNT(*) FROM \(from)\(whereClause)", arguments: arguments)
                let entries = total > 0 ? [SectionCounts.Entry(key: .null, count: total)] : []
                return SectionCounts(entries: entries, version: try version(db))
            }
            if let entries = try sectionCountsBySeeks(of: view, maximumSections: maximumSections, db: db) {
                return SectionCounts(merging: entries, by: rule, version: try version(db))
            }
            let key = keyset.sectionKey(rule)
            let order = first.order == .ascending ? "ASC" : "DESC"
            let sql =
                "SELECT \(key) AS section_key, COUNT(*) FROM \(from)\(whereClause) GROUP BY section_key ORDER BY section_key \(order)"
            let rows = try Row.fetchAll(db, sql: sql, arguments: StatementArguments(values: arguments))
            let entries = rows.map { row in
                let stored = JSONValue(row[0] as DatabaseValue)
                return SectionCounts.Entry(
                    key: fieldTypes[rule.field].map { $0.present(stored) } ?? stored,
                    count: row[1]
                )
            }
            return SectionCounts(merging: entries, by: rule, version: try version(db))
        }
    }

    /// The view's sections and their counts in view order, read from its end: the last
    /// item's section, its rows counted on one range of the view's index, then the section
    /// before it found by one seek (``lastItem(beforeSection:in:db:)``, as writes place
    /// items), and so on. No row's section key is computed but one per section. Nil, for the
    /// grouped query to count instead, when there are more than `maximumSections` sections,
    /// when a key's rows are not one range (``KeysetSQL/sectionRows(_:of:)``), when the
    /// section field holds JSON, or when the source is a query (no index to seek on).
    func sectionCountsBySeeks(of view: View, maximumSections: Int, db: Database) throws -> [SectionCounts.Entry]? {
        guard viewsAreIndexed, let rule = view.section, view.sort.first?.field == rule.field,
            fieldTypes[rule.field] != .json
        else { return nil }
        let (conditions, arguments) = keyset.databaseFilter(view)
        var entries: [SectionCounts.Entry] = []
        var next = try read(windowQueries(of: view.reversed, from: nil, inclusive: false), limit: 1, in: db).first
        while let item = next {
            let key = rule.key(for: item[rule.field])
            guard entries.count < maximumSections, let rows = keyset.sectionRows(key, of: rule) else { return nil }
            let count = try count(
                db,
                sql: "SELECT COUNT(*) FROM \(from)\(SQL.whereClause(conditions + [rows.sql]))",
                arguments: arguments + rows.arguments.map(\.databaseValue)
            )
            entries.append(SectionCounts.Entry(key: key, count: count))
            next = try lastItem(beforeSection: key, in: view, db: db)
        }
        return entries.reversed()
    }

    /// The items a statement reads, and the value of the column after the item's columns
    /// in its last row when the statement selects one (a window's store version).
    private func fetch(
        _ db: Database,
        sql: String,
        arguments: [DatabaseValue]
    ) throws -> (items: [Item], version: Int64?) {
        let statement = try db.cachedStatement(sql: sql)
        let hasVersion = statement.columnCount > columns.count
        var items: [Item] = []
        var version: Int64?
        // Each column is read straight from the statement (no `Row`, no generic decoding per value).
        let steps = try StatementSteps(statement, arguments: StatementArguments(values: arguments))
        while let sqliteStatement = try steps.next() {
            var values: [JSONValue] = []
            values.reserveCapacity(columns.count)
            for index in columns.indices {
                let value = JSONValue(DatabaseValue(sqliteStatement: sqliteStatement, index: CInt(index)))
                values.append(columnTypes[index].map { $0.present(value) } ?? value)
            }
            items.append(Item(layout: layout, values: values))
            if hasVersion,
                case .int64(let stored) = DatabaseValue(
                    sqliteStatement: sqliteStatement,
                    index: CInt(columns.count)
                ).storage
            {
                version = stored
            }
        }
        return (items, version)
    }

    private func count(_ db: Database, sql: String, arguments: [DatabaseValue]) throws -> Int {
        try Int.fetchOne(db, sql: sql, arguments: StatementArguments(values: arguments)) ?? 0
    }

    private func version(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db.cachedStatement(sql: Self.versionSQL)) ?? 0
    }

    /// The store's version at the last write through the API to a table the list reads;
    /// 0 when there was none.
    func lastChange(_ db: Database) throws -> Int64 {
        guard let lastChangeSQL else { return 0 }
        return try Int64.fetchOne(db.cachedStatement(sql: lastChangeSQL), arguments: StatementArguments(versionTables))
            ?? 0
    }

    /// ``lastChange(_:)`` with the store's version, read together.
    func lastChange() async throws -> (lastChange: Int64, version: Int64) {
        try await database.read { db in (try lastChange(db), try version(db)) }
    }
}

extension KeysetSQL {
    /// ``filter(_:)`` with its arguments as SQLite binds them.
    func databaseFilter(_ view: View) -> (sql: [String], arguments: [DatabaseValue]) {
        let (conditions, arguments) = filter(view)
        return (conditions, arguments.map(\.databaseValue))
    }
}
