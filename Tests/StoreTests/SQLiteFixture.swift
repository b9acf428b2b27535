import DataMediator
import DataMediatorSQL
import DataMediatorTesting
import Foundation
import GRDB
import Synchronization

@testable import DataMediatorSQLite

/// A SQLite store in a temporary folder holding the sample list, removed when dropped.
final class SQLiteFixture {
    let directory: URL
    let store: SQLiteStore

    static let source = StoreSource(
        kind: .table("sample"),
        fieldTypes: [
            "id": .string, "group": .string, "score": .integer, "created": .string, "kind": .string, "title": .string,
        ]
    )

    /// A store of `items`; `notNull` names columns declared `NOT NULL` in the table, which
    /// the store then reads with fewer index ranges (a view whose keys are all `NOT NULL`
    /// and share one direction is one range).
    init(items: [Item] = SampleList.items(), notNull: Set<String> = []) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("dm-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = try SQLiteStore(path: directory.appendingPathComponent("store.sqlite").path)
        if !notNull.isEmpty {
            let sql = Self.createTable(.sqlite, notNull: notNull)
            try store.database.write { try $0.execute(sql: sql) }
        }
        // Creating the provider creates the table and the views' indexes.
        _ = try store.provider(for: SampleList.definition, source: Self.source)
        try insert(items)
    }

    /// The statement that creates the sample table in `dialect` as a store would, with
    /// the text columns `notNull` names declared `NOT NULL`.
    static func createTable(_ dialect: SQLDialect, notNull: Set<String>) -> String {
        var sql = TableSchema(list: SampleList.definition, source: source, dialect: dialect).createTable("sample")
        let type = SQLTypes(dialect).column(for: .string)
        for column in notNull {
            sql = sql.replacingOccurrences(of: "\"\(column)\" \(type)", with: "\"\(column)\" \(type) NOT NULL")
        }
        return sql
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    func insert(_ items: [Item]) throws {
        try store.database.write { db in
            for item in items {
                try db.execute(
                    sql: #"INSERT INTO sample (id, "group", score, created, kind, title) VALUES (?, ?, ?, ?, ?, ?)"#,
                    arguments: StatementArguments(
                        ["id", "group", "score", "created", "kind", "title"].map { item[$0].storedValue }
                    )
                )
            }
        }
    }

    /// The sample list's adapter over the store, signing cursors with the tests' secret.
    func adapter() throws -> ListAdapter {
        try store.adapter(
            for: SampleList.definition,
            source: Self.source,
            signer: CursorSigner(secret: SampleList.secret)
        )
    }

    func provider(
        _ source: StoreSource = source,
        definition: ListDefinition = SampleList.definition
    ) throws
        -> SQLiteDataProvider
    {
        try store.provider(for: definition, source: source)
    }
}

extension JSONValue {
    /// The value as a GRDB argument.
    var storedValue: (any DatabaseValueConvertible)? {
        switch self {
        case .null: return nil
        case .bool(let flag): return flag
        case .integer(let whole): return whole
        case .number(let real): return real
        case .string(let text): return text
        case .array, .object: return idString
        }
    }
}

extension SQLiteStore {
    /// SQLite's plan for `sql` binding `arguments`: the detail of each step, in order.
    func queryPlan(_ sql: String, _ arguments: [JSONValue]) throws -> [String] {
        try database.read { db in
            try Row.fetchAll(
                db,
                sql: "EXPLAIN QUERY PLAN " + sql,
                arguments: StatementArguments(arguments.map { $0.databaseValue as (any DatabaseValueConvertible)? })
            ).map { $0["detail"] as String }
        }
    }
}

/// The statements every page reader of a SQLite provider runs, from when it is made: each
/// connection is taken in turn while the others are held, and traced.
final class PageReaderTrace: Sendable {
    private let traced = Mutex<[String]>([])

    init(_ provider: SQLiteDataProvider) throws {
        func traceAll() throws {
            _ = try provider.pageReaders.read { db in
                db.trace { event in self.traced.withLock { $0.append(event.description) } }
                try traceAll()
            }
        }
        try traceAll()
    }

    /// The statements run since the trace began or was last cleared.
    var statements: [String] { traced.withLock { $0 } }

    /// Forgets the statements traced so far.
    func clear() { traced.withLock { $0 = [] } }
}
