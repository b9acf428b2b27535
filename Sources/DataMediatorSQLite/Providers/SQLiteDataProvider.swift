import DataMediator
import DataMediatorSQL
import GRDB

/// A provider over a SQLite table or read-only query, paging by keyset on the view's index.
///
/// A page of one index range is one statement that also reads the store's version, run on
/// the calling thread (``SQLitePageReaders``): no transaction, no `OFFSET`, no `COUNT`.
/// Everything else is read as both SQL stores read it (``reader``), in one snapshot.
public struct SQLiteDataProvider: SQLDataProvider {
    /// The reads both SQL stores answer alike.
    public let reader: SQLListReader
    /// The connections a one-statement page is read on without a thread switch.
    private let pageReaders: SQLitePageReaders
    private let layout: ItemLayout
    private let columnTypes: [FieldType?]

    init(reader: SQLListReader, pageReaders: SQLitePageReaders) {
        self.reader = reader
        self.pageReaders = pageReaders
        self.layout = reader.layout
        self.columnTypes = reader.columnTypes
    }

    /// The statements of a list's windows on SQLite: each reads, after the item's columns,
    /// the store's version in the same snapshot.
    static func windows(columns: [String], from: String, keyset: KeysetSQL) -> WindowQueries {
        WindowQueries(
            columns: columns,
            from: from,
            keyset: keyset,
            trailingColumn: "(\(StoreVersion.currentSQL(.sqlite)))"
        )
    }

    /// Up to `limit` items after (or from) `start`: one indexed range read after another,
    /// in view order, until the window is full (a query list's from its kept result).
    public func window(of view: View, from start: Position?, inclusive: Bool, limit: Int) async throws -> Window {
        if let kept = try await keptWindow(of: view, from: start, inclusive: inclusive, limit: limit) { return kept }
        let queries = reader.windows.queries(of: view, from: start, inclusive: inclusive)
        let limit = max(0, limit)
        // A query is read off the calling thread (GRDB's readers): it may take long, and the
        // calling thread is one of the few every request shares.
        if queries.count == 1, limit > 0, reader.viewsAreIndexed {
            // One statement reads the items and, in its last column, the store's version:
            // SQLite runs a statement in one snapshot, so no transaction is opened around
            // it. An empty answer has no row to carry the version: it is read again below.
            let arguments = (queries[0].arguments + [.integer(Int64(limit))]).map(\.databaseValue)
            let sql = queries[0].sql
            if let answer = try pageReaders.read({ db in try fetch(db, sql: sql, arguments: arguments) }),
                let version = answer.version
            {
                return Window(items: answer.items, version: version)
            }
        }
        return try await reader.window(of: view, from: start, inclusive: inclusive, limit: limit)
    }

    /// The items a window statement reads, and the store's version from its last column
    /// (nil when it read no row).
    private func fetch(
        _ db: Database,
        sql: String,
        arguments: [DatabaseValue]
    ) throws -> (items: [Item], version: Int64?) {
        let statement = try db.cachedStatement(sql: sql)
        let count = layout.names.count
        var items: [Item] = []
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
            if case .int64(let stored) = DatabaseValue(sqliteStatement: sqliteStatement, index: CInt(count)).storage {
                version = stored
            }
        }
        return (items, version)
    }
}
