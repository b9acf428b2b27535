import DataMediator
import DataMediatorSQL
import GRDB

/// A provider over a SQLite table or read-only query, paging by keyset on the view's index.
///
/// A page is one statement that also reads the store's version, run on the calling thread
/// (``SQLitePageReaders``): no transaction, no `OFFSET`, no `COUNT`, whether the view's order
/// is one index range or several.
/// Everything else is read as both SQL stores read it (``reader``), in one snapshot.
public struct SQLiteDataProvider: SQLDataProvider {
    /// The reads both SQL stores answer alike.
    public let reader: SQLListReader
    /// The connections a one-statement page is read on without a thread switch.
    let pageReaders: SQLitePageReaders
    private let layout: ItemLayout
    private let columnTypes: [FieldType?]

    init(reader: SQLListReader, pageReaders: SQLitePageReaders) {
        self.reader = reader
        self.pageReaders = pageReaders
        self.layout = reader.layout
        self.columnTypes = reader.columnTypes
    }

    /// Up to `limit` items after (or from) `start`: one indexed range read after another,
    /// in view order, until the window is full (a query list's from its kept result).
    public func window(of view: View, from start: Position?, inclusive: Bool, limit: Int) async throws -> Window {
        if let kept = try await keptWindow(of: view, from: start, inclusive: inclusive, limit: limit) { return kept }
        let queries = reader.windows.queries(of: view, from: start, inclusive: inclusive)
        let limit = max(0, limit)
        // A query is read off the calling thread (GRDB's readers): it may take long, and the
        // calling thread is one of the few every request shares.
        if !queries.isEmpty, limit > 0, reader.viewsAreIndexed {
            // One statement reads the items and, in its last column, the store's version:
            // SQLite runs a statement in one snapshot, so no transaction is opened around
            // it. Several index ranges are one statement too (`WindowQueries.union(_:of:limit:)`). An
            // empty answer has no row to carry the version: it is read again below.
            let statement =
                queries.count == 1
                ? (sql: queries[0].sql, arguments: queries[0].arguments + [.integer(Int64(limit))])
                : reader.windows.union(queries, of: view, limit: limit)
            let arguments = statement.arguments.map(\.databaseValue)
            if let answer = try pageReaders.read({ db in
                try fetch(db, sql: statement.sql, arguments: arguments, expected: limit)
            }),
                let version = answer.version
            {
                let items = queries.count == 1 ? answer.items : Array(view.ordered(answer.items).prefix(limit))
                return Window(items: items, version: version)
            }
        }
        return try await reader.window(of: view, from: start, inclusive: inclusive, limit: limit)
    }

    /// The items on both sides of `start` (a page read with a forward cursor and the item
    /// before it): one statement on a page reader, both sides and the version, as a forward
    /// page is read; through ``reader`` for a query list, when every page reader is busy,
    /// or when neither side has a row to carry the version.
    public func window(
        of view: View,
        at start: Position,
        inclusive: Bool,
        before: Int,
        from: Int
    ) async throws -> AnchoredWindow {
        if reader.viewsAreIndexed, before > 0 || from > 0 {
            let statement = reader.windows.both(
                of: view,
                at: start,
                inclusive: inclusive,
                before: before,
                from: from,
                bindingLimits: true
            )
            let arguments = statement.arguments.map(\.databaseValue)
            if let answer = try pageReaders.read({ db in
                try fetch(db, sql: statement.sql, arguments: arguments, expected: max(0, before) + max(0, from))
            }),
                let version = answer.version
            {
                return reader.split(
                    answer.items,
                    at: start,
                    inclusive: inclusive,
                    in: view,
                    before: before,
                    from: from,
                    version: version
                )
            }
        }
        return try await readWindow(of: view, at: start, inclusive: inclusive, before: before, from: from)
    }

    /// The items around the one with `id`, in one snapshot on a page reader, as a forward
    /// page is read: for a view whose windows are one index range, one statement (both
    /// sides, found from the item's sort keys, with the version); otherwise the item by its
    /// id and then the windows before and from it, in a transaction, read here rather than
    /// by ``reader``'s rules, which run through an executor of their own (a fifth less CPU,
    /// docs/performance.md). Through ``reader`` for a query list, when every page reader is
    /// busy, or when the item is not in the view.
    public func window(of view: View, around id: String, before: Int, from: Int) async throws -> AnchoredWindow? {
        if let statement = reader.aroundQuery(id: id, in: view) {
            let sql = statement.sql
            let arguments = statement.arguments(before: max(0, before), from: max(0, from)).map(\.databaseValue)
            if let answer = try pageReaders.read({ db in
                try fetch(db, sql: sql, arguments: arguments, expected: min(before, 1_000) + min(from, 1_000))
            }),
                let version = answer.version,
                let anchored = reader.anchored(answer.items, id: id, in: view, version: version)
            {
                return anchored
            }
        } else if reader.viewsAreIndexed, let query = reader.itemQuery(id: id, in: view) {
            let answer: AnchoredWindow?? = try pageReaders.read { db in
                var window: AnchoredWindow?
                try db.inTransaction(.deferred) {
                    window = try anchored(db, item: query, id: id, in: view, before: before, from: from)
                    return .commit
                }
                return window
            }
            if let answer { return answer }
        }
        return try await readWindow(of: view, around: id, before: before, from: from)
    }

    /// ``window(of:around:before:from:)`` read on `db`, in its transaction.
    private func anchored(
        _ db: Database,
        item query: (sql: String, arguments: [JSONValue]),
        id: String,
        in view: View,
        before: Int,
        from: Int
    ) throws -> AnchoredWindow? {
        let rows = try fetch(db, sql: query.sql, arguments: query.arguments.map(\.databaseValue), versioned: false)
        guard let item = rows.items.first(where: { reader.isItem($0, id: id) }) else { return nil }
        let position = view.position(of: item)
        var version: Int64?
        func read(_ queries: [(sql: String, arguments: [JSONValue])], limit: Int) throws -> [Item] {
            var items: [Item] = []
            for query in queries where items.count < limit {
                let arguments = (query.arguments + [.integer(Int64(limit - items.count))]).map(\.databaseValue)
                let answer = try fetch(db, sql: query.sql, arguments: arguments)
                items += answer.items
                version = version ?? answer.version
            }
            return items
        }
        let preceding = try read(
            reader.windows.queries(of: view.reversed, from: position, inclusive: false),
            limit: before
        )
        let following = try read(reader.windows.queries(of: view, from: position, inclusive: true), limit: from)
        // The item itself was read, so the forward window has a row and with it the version.
        guard let version else { return nil }
        return AnchoredWindow(before: preceding, from: following, version: version)
    }

    /// The items a window statement reads, and the store's version from its last column
    /// (nil when it read no row, or when the statement is not `versioned`); `expected` is
    /// how many rows it may read (its limit), room made for them up front.
    private func fetch(
        _ db: Database,
        sql: String,
        arguments: [DatabaseValue],
        versioned: Bool = true,
        expected: Int = 0
    ) throws -> (items: [Item], version: Int64?) {
        let statement = try db.cachedStatement(sql: sql)
        let count = layout.names.count
        var items: [Item] = []
        // A page's rows are counted by its limit: made room for once, not grown row by row.
        items.reserveCapacity(min(max(0, expected), 1_000))
        var version: Int64?
        // Each column is read straight from the statement (no `Row`, no generic decoding per value).
        let steps = try StatementSteps(statement, arguments: StatementArguments(values: arguments))
        while let sqliteStatement = try steps.next() {
            var values: [JSONValue] = []
            values.reserveCapacity(count)
            for index in 0..<count {
                let value = JSONValue(DatabaseValue(sqliteStatement: sqliteStatement, index: CInt(index)))
                values.append(columnTypes[index].map { $0.present(value) } ?? value)
            }
            items.append(Item(layout: layout, values: values))
            if versioned,
                case .int64(let stored) = DatabaseValue(sqliteStatement: sqliteStatement, index: CInt(count)).storage
            {
                version = stored
            }
        }
        return (items, version)
    }
}
