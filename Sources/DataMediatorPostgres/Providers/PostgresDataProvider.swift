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
        from: String,
        columns: [String],
        idField: String,
        idIsInteger: Bool,
        fieldTypes: [String: FieldType],
        keyset: KeysetSQL,
        versionTables: [String]
    ) {
        self.store = store
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

    /// The item with `id` in the view and its place, from counts of the rows before it.
    public func locate(id: String, in view: View) async throws -> Location? {
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
                // Sections are told apart by their id (text), as pages group them.
                let key = "COALESCE(CAST((\(keyset.sectionKey(rule))) AS TEXT), '')"
                let ownKey = "COALESCE(CAST(? AS TEXT), '')"
                let stored = rule.key(for: item[rule.field])
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
            return Location(
                item: item,
                position: position,
                sectionIndex: sectionIndex,
                itemIndex: itemIndex,
                version: try await PostgresStore.version(connection, logger: logger)
            )
        }
    }

    /// The view's sections and counts, by one grouped query in the view's order.
    public func sectionCounts(of view: View) async throws -> SectionCounts {
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
            let key = keyset.sectionKey(rule)
            let order = first.order == .ascending ? "ASC NULLS FIRST" : "DESC NULLS LAST"
            let sql =
                "SELECT \(key) AS section_key, COUNT(*) FROM \(from)\(whereClause) GROUP BY 1 ORDER BY 1 \(order)"
            let rows = try await connection.query(PostgresQuery(sql: sql, values: arguments), logger: logger)
            var entries: [SectionCounts.Entry] = []
            for try await row in rows {
                let cells = Array(row)
                let stored = try JSONValue(cells[0])
                let key = presented(stored, field: rule.field)
                let count = Int(try cells[1].decode(Int64.self))
                // Keys SQL tells apart but pages show as one section (NULL and '') count as one.
                if let last = entries.last, rule.id(for: last.key) == rule.id(for: key) {
                    entries[entries.count - 1] = SectionCounts.Entry(key: last.key, count: last.count + count)
                } else {
                    entries.append(SectionCounts.Entry(key: key, count: count))
                }
            }
            return SectionCounts(entries: entries, version: try await PostgresStore.version(connection, logger: logger))
        }
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
