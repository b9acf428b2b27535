import DataMediator
import DataMediatorSQL
import DataMediatorTesting
import Foundation
import GRDB
import GRDBSQLite
import Testing

@testable import DataMediatorSQLite

/// A SQLite store's connections keep at most ``SQLiteStatementTexts/capacity`` statement
/// texts compiled: a `PATCH` writes the fields it names, one text per set of them, and GRDB
/// keeps every text a connection compiled. A writer naming each subset of a list's fields
/// in turn (review 80) made the store's writer keep a compiled statement for each.
@Suite struct SQLiteStatementTextsTests {
    static let names = (0..<11).map { "f\($0)" }

    @Test func aWriterNamingEverySetOfFieldsLeavesAFewStatementsCompiled() async throws {
        var fields: [String: FieldType] = ["id": .string]
        for name in Self.names { fields[name] = .string }
        let definition = ListDefinition(
            name: "wide",
            title: "Wide",
            idField: "id",
            revisionField: "rev",
            views: [View(name: "all", sort: [SortKey("id")], idField: "id", cellType: .fixed("w"), fields: Self.names)],
            isWritable: true,
            rules: FieldRules(types: fields.filter { $0.key != "id" })
        )
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("dm-texts-\(UUID()).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in
            let columns = Self.names.map { "\($0) text" }.joined(separator: ", ")
            try db.execute(sql: "CREATE TABLE wide (id text PRIMARY KEY NOT NULL, rev bigint, \(columns))")
            try db.execute(sql: "INSERT INTO wide (id, rev) VALUES ('a', 1)")
        }
        let store = try SQLiteStore(path: path)
        let adapter = try store.adapter(
            for: definition,
            source: StoreSource(kind: .table("wide"), fieldTypes: fields.merging(["rev": .integer]) { $1 }),
            signer: CursorSigner(secret: SampleList.secret)
        )
        let subsets = 1..<(1 << Self.names.count)
        for subset in subsets {
            var data: [String: JSONValue] = [:]
            for (index, name) in Self.names.enumerated() where subset & (1 << index) != 0 {
                data[name] = .string("\(subset)")
            }
            _ = try await adapter.patch(id: "a", body: .object(["data": .object(data)]))
        }
        // Past the texts kept, each write still stores what it names.
        let stored = try await queue.read { try String.fetchOne($0, sql: "SELECT f0 || '/' || f10 FROM wide") }
        #expect(stored == "\(subsets.upperBound - 1)/\(subsets.upperBound - 1)")
        let transactions = try #require(store.transactions as? SQLiteTransactions)
        let compiled = try await transactions.database.write { db in
            var count = 0
            var statement = sqlite3_next_stmt(db.sqliteConnection, nil)
            while let current = statement {
                count += 1
                statement = sqlite3_next_stmt(db.sqliteConnection, current)
            }
            return count
        }
        #expect(compiled <= transactions.texts.capacity, "\(subsets.count) sets of fields written")
        #expect(compiled > 0)
    }
}
