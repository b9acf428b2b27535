import DataMediator
import DataMediatorSQL
import Logging
import PostgresNIO

/// A provider over a PostgreSQL table or read-only query, paging by keyset on the view's
/// index.
///
/// Every answer is read in one snapshot, so its items and version agree. The page path
/// runs indexed range queries and one version lookup: no `OFFSET`, no `COUNT`.
public struct PostgresDataProvider: DataProvider, SectionInfoProvider {
    private let store: PostgresStore
    /// Whether every view has an index on its sort (a table source): only then is walking
    /// sections by seeks cheap; over a query, each seek would read the whole query.
    private let viewsAreIndexed: Bool
    private let from: String
    private let selectList: String
    private let layout: ItemLayout
    private let columnTypes: [FieldType?]
    private let idField: String
    /// Whether the id column holds integers (ids arrive as text and are matched as numbers).
    let idIsInteger: Bool
    private let keyset: KeysetSQL
    /// The tables whose writes change the list's items.
    private let versionTables: [String]
    /// The SQL of windows, built on first use.
    private let windows: WindowQueries

    init(
        store: PostgresStore,
        viewsAreIndexed: Bool,
        from: String,
        columns: [String],
        idField: String,
        idIsInteger: Bool,
        fieldTypes: [String: FieldType],
        keyset: KeysetSQL,
        versionTables: [String]
    ) {
        self.store = store
        self.viewsAreIndexed = viewsAreIndexed
        self.from = from
        self.selectList = columns.map(SQL.quote).joined(separator: ", ")
        self.layout = ItemLayout(columns)
        self.columnTypes = columns.map { fieldTypes[$0] }
        self.idField = idField
        self.idIsInteger = idIsInteger
        self.keyset = keyset
        self.versionTables = versionTables
        self.windows = WindowQueries(columns: columns, from: from, keyset: keyset)
    }

    private var logger: Logger { store.logger }

    /// Up to `limit` items after (or from) `start`: one indexed range read after another,
    /// in view order, until the window is full.
    public func window(of view: View, from start: Position?, inclusive: Bool, limit: Int) async throws -> Window {
        let queries = windowQueries(of: view, from: start, inclusive: inclusive)
        let limit = max(0, limit)
        if queries.count == 1, let query = queries.first {
            return try await window(query, of: view, limit: limit)
        }
        return try await store.read { connection in
            Window(
                items: try await read(queries, limit: limit, connection),
                version: try await PostgresStore.version(connection, logger: logger)
            )
        }
    }

    /// A window of one index range, read with the store's version in one statement (one
    /// snapshot, one round trip): the version row joined to the range, so an empty range
    /// still answers the version.
    private func window(
        _ query: (sql: String, arguments: [JSONValue]),
        of view: View,
        limit: Int
    ) async throws
        -> Window
    {
        // The outer ORDER BY restates the range's order, which a join need not keep; it
        // sorts at most `limit` rows. The version's alias cannot clash with a column.
        let sql = """
            SELECT s.dm_store_version, w.* FROM (SELECT version AS dm_store_version FROM \(PostgresStore.storeTable)) AS s
            LEFT JOIN LATERAL (\(query.sql)) AS w ON TRUE ORDER BY \(keyset.orderBy(view))
            """
        let arguments = query.arguments + [.integer(Int64(limit))]
        let idIndex = layout.index(of: idField) ?? 0
        return try await store.readStatement { connection in
            let rows = try await connection.query(PostgresQuery(sql: sql, values: arguments), logger: logger)
            var version: Int64 = 0
            var items: [Item] = []
            for try await row in rows {
                var cells = row.makeIterator()
                if let first = cells.next() { version = try first.decode(Int64.self) }
                let values = try row.jsonValues(types: columnTypes, skipping: 1)
                // The join's one row of an empty range holds only NULLs; an item has an id.
                guard values.indices.contains(idIndex), values[idIndex] != .null else { continue }
                items.append(Item(layout: layout, values: values))
            }
            return Window(items: items, version: version)
        }
    }

    /// Runs a view's first window with no rows, to find a filter value of the wrong type
    /// at start-up rather than on the first request.
    func check(_ view: View, _ connection: PostgresConnection) async throws {
        for query in windowQueries(of: view, from: nil, inclusive: false) {
            _ = try await fetch(query.sql, query.arguments + [.integer(0)], connection)
        }
    }

    /// Up to `limit` items of `view` strictly before `position`, nearest first, read in
    /// the caller's transaction (a write's, to place the item it wrote).
    func items(
        before position: Position,
        in view: View,
        limit: Int,
        _ connection: PostgresConnection
    ) async throws
        -> [Item]
    {
        try await read(windowQueries(of: view.reversed, from: position, inclusive: false), limit: limit, connection)
    }

    /// The last item of `view` before the first item of the section with `key`, nil when
    /// that section is the view's first: one read on the view's index per range.
    func lastItem(beforeSection key: JSONValue, in view: View, _ connection: PostgresConnection) async throws -> Item? {
        let (conditions, arguments) = keyset.filter(view)
        let order = " ORDER BY \(keyset.orderBy(view.reversed)) LIMIT 1"
        for range in keyset.beforeSection(key, in: view) {
            let sql = "SELECT \(selectList) FROM \(from)\(SQL.whereClause(conditions + [range.sql]))" + order
            if let item = try await fetch(sql, arguments + range.arguments, connection).first { return item }
        }
        return nil
    }

    /// The rows of window queries, one range after another, until `limit` are read.
    private func read(
        _ queries: [(sql: String, arguments: [JSONValue])],
        limit: Int,
        _ connection: PostgresConnection
    ) async throws -> [Item] {
        var items: [Item] = []
        for query in queries where items.count < limit {
            items += try await fetch(query.sql, query.arguments + [.integer(Int64(limit - items.count))], connection)
        }
        return items
    }

    /// The version of the list's source now.
    public func currentVersion() async throws -> Int64 {
        try await store.version()
    }

    private func windowQueries(
        of view: View,
        from start: Position?,
        inclusive: Bool
    ) -> [(
        sql: String, arguments: [JSONValue]
    )] {
        windows.queries(of: view, from: start, inclusive: inclusive)
    }

    /// The most sections before an item that ``locate(id:in:)`` hops over on the view's
    /// index; beyond it, one query counts the distinct section keys before the item.
    static let maximumSectionHops = 10_000

    /// The item with `id` in the view and its place, from counts of the rows before it.
    public func locate(id: String, in view: View) async throws -> Location? {
        try await locate(id: id, in: view, maximumSectionHops: Self.maximumSectionHops)
    }

    /// ``locate(id:in:)``, hopping over at most `maximumSectionHops` sections.
    func locate(id: String, in view: View, maximumSectionHops: Int) async throws -> Location? {
        var (conditions, arguments) = keyset.filter(view)
        let filterConditions = conditions
        let filterArguments = arguments
        if idIsInteger {
            guard let whole = Int64(id), String(whole) == id else { return nil }
            conditions.append("\(SQL.quote(idField)) = ?")
            arguments.append(.integer(whole))
        } else {
            conditions.append("\(SQL.quote(idField))::text = ?")
            arguments.append(.string(id))
        }
        let itemSQL = "SELECT \(selectList) FROM \(from)\(SQL.whereClause(conditions)) LIMIT 2"
        let itemArguments = arguments
        return try await store.read { connection in
            guard
                let item = try await fetch(itemSQL, itemArguments, connection)
                    .first(where: { $0[idField].idString == id })
            else { return nil }
            let before = keyset.before(view.position(of: item), in: view)
            let beforeWhere = SQL.whereClause(filterConditions + [before.sql])
            let beforeArguments = filterArguments + before.arguments
            let position = try await count("SELECT COUNT(*) FROM \(from)\(beforeWhere)", beforeArguments, connection)
            var sectionIndex = 0
            var itemIndex = position
            if let rule = view.section {
                let stored = rule.key(for: item[rule.field])
                if let sections = try await sectionsBefore(stored, in: view, limit: maximumSectionHops, connection) {
                    sectionIndex = sections
                    var rowsBefore = 0
                    for range in keyset.beforeSection(stored, in: view) {
                        rowsBefore += try await count(
                            "SELECT COUNT(*) FROM \(from)\(SQL.whereClause(filterConditions + [range.sql]))",
                            filterArguments + range.arguments,
                            connection
                        )
                    }
                    itemIndex = position - rowsBefore
                } else {
                    // Sections are told apart by their id (text), as pages group them.
                    let key = "COALESCE(CAST((\(keyset.sectionKey(rule))) AS TEXT), '')"
                    let ownKey = "COALESCE(CAST(? AS TEXT), '')"
                    sectionIndex = try await count(
                        "SELECT COUNT(DISTINCT \(key)) FROM \(from)\(beforeWhere) AND \(key) <> \(ownKey)",
                        beforeArguments + [stored],
                        connection
                    )
                    itemIndex = try await count(
                        "SELECT COUNT(*) FROM \(from)\(beforeWhere) AND \(key) = \(ownKey)",
                        beforeArguments + [stored],
                        connection
                    )
                }
            }
            return Location(
                item: item,
                position: position,
                sectionIndex: sectionIndex,
                itemIndex: itemIndex,
                version: try await PostgresStore.version(connection, logger: logger)
            )
        }
    }

    /// The number of sections of `view` before the section with `key`, read by hopping from
    /// each section to the one before it on the view's index, all in one recursive
    /// statement (a loose index scan): no row's section key is computed but one per section.
    ///
    /// Nil, for the count of section keys to decide instead, when the section field is not
    /// text, when `key` is NULL or empty (which pages show as one section), when a section
    /// key has no next text to seek to, when more than `limit` sections come before it, or
    /// when the source is a query (no index to seek on).
    func sectionsBefore(
        _ key: JSONValue,
        in view: View,
        limit: Int,
        _ connection: PostgresConnection
    ) async throws -> Int? {
        guard viewsAreIndexed, let rule = view.section, let leading = view.sort.first, leading.field == rule.field,
            keyset.textColumns.contains(rule.field), case .string(let text) = key, !text.isEmpty
        else { return nil }
        let quoted = SQL.quote(rule.field)
        let column = keyset.column(rule.field)
        let descending = leading.order == .descending
        let (sectionKey, end, stuck) = sectionWalk(rule)
        // The rows of the sections before section `k`: descending, the texts from the
        // least one after section `k`'s; ascending, the smaller ones.
        let before = descending ? "\(column) >= \(end)" : "\(column) < k"
        let (conditions, arguments) = keyset.filter(view)
        // The nearest row first: the view's order reversed, NULLs placed as the index has
        // them, so that the index is read backwards from the bound.
        let reversed = SortKey(rule.field, descending ? .ascending : .descending)
        let nearest = "ORDER BY \(keyset.orderTerm(reversed)) LIMIT 1"
        let sql = """
            WITH RECURSIVE hops(k, n) AS (
                SELECT CAST(? AS text) COLLATE "C", 0
                UNION ALL
                SELECT (SELECT \(sectionKey) FROM \(from)\(SQL.whereClause(conditions + [before])) \(nearest)) COLLATE "C", n + 1
                FROM hops WHERE k IS NOT NULL AND n < ? AND NOT (\(stuck))
            )
            SELECT COUNT(k) - 1, bool_or(k IS NOT NULL AND (n = ? OR \(stuck))),
                (SELECT k FROM hops WHERE k IS NOT NULL ORDER BY n DESC LIMIT 1)
            FROM hops
            """
        let rows = try await connection.query(
            PostgresQuery(sql: sql, values: [key] + arguments + [.integer(Int64(limit)), .integer(Int64(limit))]),
            logger: logger
        )
        var answer: (sections: Int64, unfinished: Bool, last: String)?
        for try await row in rows.decode((Int64, Bool, String).self) { answer = row }
        guard let answer, !answer.unfinished else { return nil }
        // Ascending, NULLs come first: their section is one more before, unless it is the
        // empty text's, which pages show together with them.
        guard !descending, answer.last != "" else { return Int(answer.sections) }
        let nulls = try await count(
            "SELECT COUNT(*) FROM (SELECT 1 FROM \(from)\(SQL.whereClause(conditions + ["\(quoted) IS NULL"])) LIMIT 1) AS n",
            arguments,
            connection
        )
        return Int(answer.sections) + nulls
    }

    /// The view's sections and counts, by one grouped query in the view's order.
    public func sectionCounts(of view: View) async throws -> SectionCounts {
        // As many sections as ``locate(id:in:)`` hops over; a view with more is grouped.
        try await sectionCounts(of: view, maximumSections: Self.maximumSectionHops)
    }

    /// ``sectionCounts(of:)``, walking at most `maximumSections` sections one at a time.
    func sectionCounts(of view: View, maximumSections: Int) async throws -> SectionCounts {
        let (conditions, arguments) = keyset.filter(view)
        let whereClause = SQL.whereClause(conditions)
        return try await store.read { connection in
            guard let rule = view.section, let first = view.sort.first else {
                let total = try await count("SELECT COUNT(*) FROM \(from)\(whereClause)", arguments, connection)
                let entries = total > 0 ? [SectionCounts.Entry(key: .null, count: total)] : []
                return SectionCounts(
                    entries: entries,
                    version: try await PostgresStore.version(connection, logger: logger)
                )
            }
            if let entries = try await sectionCountsByHops(of: view, limit: maximumSections, connection) {
                return SectionCounts(
                    merging: entries,
                    by: rule,
                    version: try await PostgresStore.version(connection, logger: logger)
                )
            }
            let key = keyset.sectionKey(rule)
            let order = first.order == .ascending ? "ASC NULLS FIRST" : "DESC NULLS LAST"
            let sql =
                "SELECT \(key) AS section_key, COUNT(*) FROM \(from)\(whereClause) GROUP BY 1 ORDER BY 1 \(order)"
            let rows = try await connection.query(PostgresQuery(sql: sql, values: arguments), logger: logger)
            var entries: [SectionCounts.Entry] = []
            for try await row in rows {
                let cells = Array(row)
                let stored = try JSONValue(cells[0])
                entries.append(
                    SectionCounts.Entry(
                        key: presented(stored, field: rule.field),
                        count: Int(try cells[1].decode(Int64.self))
                    )
                )
            }
            return SectionCounts(
                merging: entries,
                by: rule,
                version: try await PostgresStore.version(connection, logger: logger)
            )
        }
    }

    /// The SQL of walking `rule`'s sections over a section key `k`, on a text field: a row's
    /// section key; the least text after every text of section `k` (after all those that
    /// start with the prefix `k`, or just after `k` when it is shorter than the prefix or
    /// the sections are values); and whether `k` has no such text (`chr` has no character
    /// after U+D7FF, the surrogates, or U+10FFFF), which stops a walk and is reported.
    private func sectionWalk(_ rule: SectionRule) -> (sectionKey: String, end: String, stuck: String) {
        let quoted = SQL.quote(rule.field)
        guard let length = rule.grouping.prefixLength else { return (quoted, "k || chr(1)", "FALSE") }
        return (
            "substr(\(quoted), 1, \(length))",
            "(CASE WHEN char_length(k) = \(length) THEN left(k, -1) || chr(ascii(right(k, 1)) + 1) ELSE k || chr(1) END)",
            "char_length(k) = \(length) AND ascii(right(k, 1)) IN (55295, 1114111)"
        )
    }

    /// The view's sections and counts in view order, walked from section to section on the
    /// view's index in one recursive statement (as ``sectionsBefore(_:in:limit:_:)`` does,
    /// forwards), each section's rows counted on one range of the index: no row's section
    /// key is computed but one per section. NULLs are one section, first ascending and last
    /// descending. Nil, for the grouped query to count instead, when the section field is
    /// not text, when a key has no next text to seek to, when there are more than `limit`
    /// sections, or when the source is a query (no index to seek on).
    func sectionCountsByHops(
        of view: View,
        limit: Int,
        _ connection: PostgresConnection
    ) async throws -> [SectionCounts.Entry]? {
        guard viewsAreIndexed, let rule = view.section, let leading = view.sort.first, leading.field == rule.field,
            keyset.textColumns.contains(rule.field), layout.index(of: rule.field).flatMap({ columnTypes[$0] }) != .json
        else { return nil }
        let quoted = SQL.quote(rule.field)
        let column = keyset.column(rule.field)
        let descending = leading.order == .descending
        let (conditions, arguments) = keyset.filter(view)
        let (sectionKey, end, stuck) = sectionWalk(rule)
        // The rows after section `k` in view order, and the rows of section `k`.
        let after = descending ? "\(column) < k" : "\(column) >= \(end)"
        let rows = "\(column) >= k AND \(column) < \(end)"
        let nearest = "ORDER BY \(keyset.orderTerm(leading)) LIMIT 1"
        let notNull = SQL.whereClause(conditions + ["\(quoted) IS NOT NULL"])
        let sql = """
            WITH RECURSIVE hops(k, n) AS (
                SELECT (SELECT \(sectionKey) FROM \(from)\(notNull) \(nearest)) COLLATE "C", 0
                UNION ALL
                SELECT (SELECT \(sectionKey) FROM \(from)\(SQL.whereClause(conditions + [after])) \(nearest)) COLLATE "C", n + 1
                FROM hops WHERE k IS NOT NULL AND n < ? AND NOT (\(stuck))
            )
            SELECT k, (SELECT COUNT(*) FROM \(from)\(SQL.whereClause(conditions + [rows]))), n = ? OR \(stuck)
            FROM hops WHERE k IS NOT NULL ORDER BY n
            """
        let values = arguments + arguments + [.integer(Int64(limit))] + arguments + [.integer(Int64(limit))]
        let answer = try await connection.query(PostgresQuery(sql: sql, values: values), logger: logger)
        var entries: [SectionCounts.Entry] = []
        for try await (key, count, unfinished) in answer.decode((String, Int64, Bool).self) {
            if unfinished { return nil }
            entries.append(SectionCounts.Entry(key: .string(key), count: Int(count)))
        }
        let nulls = try await count(
            "SELECT COUNT(*) FROM \(from)\(SQL.whereClause(conditions + ["\(quoted) IS NULL"]))",
            arguments,
            connection
        )
        guard nulls > 0 else { return entries }
        let section = SectionCounts.Entry(key: .null, count: nulls)
        return descending ? entries + [section] : [section] + entries
    }

    /// A stored value of `field` as the API shows it.
    private func presented(_ stored: JSONValue, field: String) -> JSONValue {
        guard let index = layout.index(of: field), let type = columnTypes[index] else { return stored }
        return type.present(stored)
    }

    private func fetch(
        _ sql: String,
        _ arguments: [JSONValue],
        _ connection: PostgresConnection
    ) async throws
        -> [Item]
    {
        let rows = try await connection.query(PostgresQuery(sql: sql, values: arguments), logger: logger)
        var items: [Item] = []
        for try await row in rows {
            items.append(Item(layout: layout, values: try row.jsonValues(types: columnTypes)))
        }
        return items
    }

    private func count(_ sql: String, _ arguments: [JSONValue], _ connection: PostgresConnection) async throws -> Int {
        let rows = try await connection.query(PostgresQuery(sql: sql, values: arguments), logger: logger)
        for try await count in rows.decode(Int64.self) { return Int(count) }
        return 0
    }

    /// The store's version at the last write to a table the list reads (0 when there was
    /// none), with the store's version, read together.
    func lastChange() async throws -> (lastChange: Int64, version: Int64) {
        try await store.read { connection in
            let rows = try await connection.query(
                """
                SELECT COALESCE(MAX(changed_at), 0)::bigint FROM \(unescaped: PostgresStore.versionTable)
                WHERE source = ANY(\(versionTables))
                """,
                logger: logger
            )
            var last: Int64 = 0
            for try await value in rows.decode(Int64.self) { last = value }
            return (last, try await PostgresStore.version(connection, logger: logger))
        }
    }
}
