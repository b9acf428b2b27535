import DataMediator
import DataMediatorSQL
import Logging
import PostgresNIO

/// A provider over a PostgreSQL table or read-only query, paging by keyset on the view's
/// index.
///
/// A page is one statement that also reads the store's version, outside a transaction (one
/// statement reads one snapshot): one round trip, no `OFFSET`, no `COUNT`, whether the
/// view's order is one index range or several. Everything else is read as both SQL stores
/// read it (``reader``), in one snapshot.
public struct PostgresDataProvider: SQLDataProvider {
    private let store: PostgresStore
    /// The reads both SQL stores answer alike.
    public let reader: SQLListReader

    init(store: PostgresStore, reader: SQLListReader) {
        self.store = store
        self.reader = reader
    }

    /// Up to `limit` items after (or from) `start`: one indexed range read after another,
    /// in view order, until the window is full (a query list's from its kept result).
    ///
    /// A window of several ranges (a view with nullable keys, or keys in both directions) is
    /// one statement too (``WindowQueries/union(_:of:limit:)``), with the version.
    public func window(of view: View, from start: Position?, inclusive: Bool, limit: Int) async throws -> Window {
        if let kept = try await keptWindow(of: view, from: start, inclusive: inclusive, limit: limit) { return kept }
        // A query's text is the operator's, and may call a function that writes: it runs
        // only in a read-only transaction (a statement outside one would commit the write).
        guard reader.viewsAreIndexed else {
            return try await reader.window(of: view, from: start, inclusive: inclusive, limit: limit)
        }
        let queries = reader.windows.queries(of: view, from: start, inclusive: inclusive)
        let limit = max(0, limit)
        if queries.count == 1 {
            return try await window(WindowQueries.limited(queries[0], limit: limit), orderedBy: view)
        }
        if queries.count > 1, limit > 0 {
            let union = reader.windows.union(queries, of: view, limit: limit)
            if let window = try await read(union.sql, union.arguments, versionFirst: false) {
                return Window(items: Array(view.ordered(window.items).prefix(limit)), version: window.version)
            }
        }
        return try await reader.window(of: view, from: start, inclusive: inclusive, limit: limit)
    }

    /// A window of `query` (whose placeholders `arguments` binds, its limits written in),
    /// read with the store's version in one statement (one snapshot, one round trip): each
    /// row carries the version in its last column (a subquery run once). An empty range
    /// has no row to carry it, so then the version row is read joined to the range, which
    /// answers it whether or not a row is there; in the order of `order` when given.
    private func window(_ query: (sql: String, arguments: [JSONValue]), orderedBy order: View?) async throws -> Window {
        if let window = try await read(query.sql, query.arguments, versionFirst: false) { return window }
        // The outer ORDER BY restates the range's order, which a join need not keep; it
        // sorts at most the range's limit of rows. The version's alias cannot clash with a
        // column.
        let orderBy = order.map { " ORDER BY \(reader.keyset.orderBySelected($0))" } ?? ""
        let sql = """
            SELECT s.dm_store_version, w.* FROM (SELECT version AS dm_store_version FROM \(ServiceTables.store)) AS s
            LEFT JOIN LATERAL (\(query.sql)) AS w ON TRUE\(orderBy)
            """
        return try await read(sql, query.arguments, versionFirst: true) ?? Window(items: [], version: 0)
    }

    /// The items and the version that `sql` reads: the version in every row's first column
    /// (`versionFirst`) or last. Nil when it reads no row.
    private func read(_ sql: String, _ arguments: [JSONValue], versionFirst: Bool) async throws -> Window? {
        let layout = reader.layout
        let columnTypes = reader.columnTypes
        let idIndex = layout.index(of: reader.columns.first ?? "") ?? 0
        let logger = store.logger
        let statements = store.preparedStatements
        return try await store.readStatement { connection in
            let rows = try await connection.rows(of: sql, binding: arguments, preparedIn: statements, logger: logger)
            var version: Int64?
            var items: [Item] = []
            for try await row in rows {
                var values = try row.jsonValues(types: columnTypes, skipping: versionFirst ? 1 : 0)
                // The range's own last column is the version (NULL in the joined form's one
                // row of an empty range, whose first column has it).
                let last = values.removeLast()
                if versionFirst {
                    var cells = row.makeIterator()
                    version = try cells.next()?.decode(Int64.self)
                } else if case .integer(let stamp) = last {
                    version = stamp
                }
                // The join's one row of an empty range holds only NULLs but its version; an
                // item has an id.
                guard values.indices.contains(idIndex), values[idIndex] != .null else { continue }
                items.append(Item(layout: layout, values: values))
            }
            return version.map { Window(items: items, version: $0) }
        }
    }

    /// The items on both sides of `start` (a page read with a forward cursor and the item
    /// before it): one statement, both sides and the store's version, as a forward page is
    /// read; as both SQL stores read it for a list over a query.
    public func window(
        of view: View,
        at start: Position,
        inclusive: Bool,
        before: Int,
        from: Int
    ) async throws -> AnchoredWindow {
        guard reader.viewsAreIndexed else {
            return try await readWindow(of: view, at: start, inclusive: inclusive, before: before, from: from)
        }
        let statement = reader.windows.both(
            of: view,
            at: start,
            inclusive: inclusive,
            before: before,
            from: from,
            bindingLimits: false
        )
        let window = try await window(statement, orderedBy: nil)
        return reader.split(
            window.items,
            at: start,
            inclusive: inclusive,
            in: view,
            before: before,
            from: from,
            version: window.version
        )
    }

    /// The items around the one with `id`: for a view whose windows are one index range,
    /// one statement (both sides, found from the item's sort keys, with the store's
    /// version), as a forward page is read; otherwise as both SQL stores read it, in one
    /// snapshot. The rows are put in view order here: a join need not keep the order of
    /// its sides.
    public func window(of view: View, around id: String, before: Int, from: Int) async throws -> AnchoredWindow? {
        guard let statement = reader.aroundQuery(id: id, in: view) else {
            return try await readWindow(of: view, around: id, before: before, from: from)
        }
        let window = try await window(statement.limited(before: before, from: from), orderedBy: nil)
        if let anchored = reader.anchored(window.items, id: id, in: view, version: window.version) { return anchored }
        return try await readWindow(of: view, around: id, before: before, from: from)
    }

    /// Runs a view's first window with no rows, to find a filter value of the wrong type
    /// at start-up rather than on the first request.
    func check(_ view: View, _ session: any SQLSession) async throws {
        for query in reader.windows.queries(of: view, from: nil, inclusive: false) {
            _ = try await session.rows(query.sql, query.arguments + [.integer(0)])
        }
    }
}
