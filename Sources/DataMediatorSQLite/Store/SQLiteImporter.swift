import DataMediator
import DataMediatorSQL
import Foundation
import GRDB

/// Loads records into a table list's table in bulk: each record is checked against the
/// list's field rules and inserted with prepared statements, many to a transaction.
///
/// Without `skipBad`, the whole import is one transaction: the first bad record stops it
/// and nothing of it is stored. With `skipBad`, bad records are reported and left out, and
/// every `batch` records are committed. Either way the table's version goes up by one
/// and the list's change history restarts after the import (a client holding older pages
/// gets `410` and reloads), since a bulk load logs no changes item by item.
public struct SQLiteImporter: Sendable {
    /// One record to import: where it was read (a line number), and its fields.
    public struct Record: Sendable {
        /// The record's line in its file.
        public let line: Int
        /// Its fields, the id among them.
        public let fields: [String: JSONValue]
        /// Why it could not be read (not JSON, a cell of the wrong type); nil when it was.
        public let problem: String?

        /// Creates a record.
        public init(line: Int, fields: [String: JSONValue], problem: String? = nil) {
            self.line = line
            self.fields = fields
            self.problem = problem
        }
    }

    /// A record that was not imported, and why.
    public struct Rejection: Sendable, Hashable {
        /// Its line.
        public let line: Int
        /// Why.
        public let reason: String
    }

    /// What an import did.
    public struct Summary: Sendable {
        /// Records stored.
        public var imported = 0
        /// Records left out (with `skipBad`), at most the first 1,000 of them with reasons.
        public var rejected = 0
        /// The first rejections.
        public var rejections: [Rejection] = []
        /// The store's version after the import.
        public var version: Int64 = 0
    }

    /// The first bad record of an import without `skipBad`: nothing was stored.
    public struct Stopped: Error, CustomStringConvertible {
        /// The bad record.
        public let rejection: Rejection
        /// A sentence for the operator.
        public var description: String {
            "\(rejection.line): \(rejection.reason); nothing was imported (--skip-bad leaves bad records out)"
        }
    }

    private let store: SQLiteStore
    private let list: ListDefinition
    private let table: String
    private let fieldTypes: [String: FieldType]
    private let insertSQL: String
    private let columns: [String]

    /// An importer into `list`, a writable or read-only list over a table of `store`.
    ///
    /// - Throws: `StoreError` when the list is over a query.
    public init(store: SQLiteStore, list: ListDefinition, source: StoreSource) throws {
        guard case .table(let table) = source.kind else {
            throw StoreError(list: list.name, "is over a query; import into a list over a table")
        }
        self.store = store
        self.list = list
        self.table = table
        self.fieldTypes = source.fieldTypes
        let declared = source.fieldTypes.keys.filter { $0 != list.idField && $0 != list.revisionField }.sorted()
        self.columns = [list.idField] + declared
        let marks = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        self.insertSQL =
            "INSERT INTO \(SQL.quote(table)) (\(columns.map(SQL.quote).joined(separator: ", "))) VALUES (\(marks))"
    }

    /// Imports `records`; `progress` is called after every `batch` records with the count so far.
    ///
    /// - Throws: ``Stopped`` for the first bad record when `skipBad` is false (nothing is
    ///   stored then); database errors.
    public func run(
        _ records: some Sequence<Record>,
        skipBad: Bool,
        batch: Int = 10_000,
        progress: (Int) -> Void = { _ in }
    ) throws -> Summary {
        var summary = Summary()
        var iterator = records.makeIterator()
        var finished = false
        let rules = list.rules
        let idType = fieldTypes[list.idField] ?? .string
        // Without skipBad, one transaction for everything; with it, one per batch.
        let perTransaction = skipBad ? max(1, batch) : Int.max
        while !finished {
            try store.database.writeWithoutTransaction { db in
                try db.inTransaction(.immediate) {
                    let statement = try db.cachedStatement(sql: insertSQL)
                    var count = 0
                    while count < perTransaction {
                        guard let record = iterator.next() else {
                            finished = true
                            break
                        }
                        count += 1
                        let rejection: String?
                        do {
                            if let problem = record.problem {
                                throw DataMediatorError(.invalidItem, problem)
                            }
                            let arguments = try Self.arguments(
                                record,
                                columns: columns,
                                idField: list.idField,
                                idType: idType,
                                types: fieldTypes,
                                rules: rules
                            )
                            try statement.execute(arguments: arguments)
                            rejection = nil
                        } catch let error as DataMediatorError {
                            rejection =
                                error.fieldProblems.isEmpty
                                ? error.message
                                : error.fieldProblems.map { "'\($0.field)' \($0.detail)" }.joined(separator: "; ")
                        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                            rejection = "the id exists already (or another constraint of the table fails)"
                        }
                        if let rejection {
                            let refused = Rejection(line: record.line, reason: rejection)
                            guard skipBad else { throw Stopped(rejection: refused) }
                            summary.rejected += 1
                            if summary.rejections.count < 1000 { summary.rejections.append(refused) }
                        } else {
                            summary.imported += 1
                        }
                        if (summary.imported + summary.rejected) % max(1, batch) == 0 {
                            progress(summary.imported + summary.rejected)
                        }
                    }
                    if finished { summary.version = try restartHistory(db) }
                    return .commit
                }
            }
        }
        progress(summary.imported + summary.rejected)
        return summary
    }

    /// Raises the table's version by one and restarts the list's change history there.
    private func restartHistory(_ db: Database) throws -> Int64 {
        try db.execute(
            sql: "INSERT OR IGNORE INTO \(SQLiteStore.versionTable) (source, version) VALUES (?, 0)",
            arguments: [table]
        )
        let version = try SQLiteStore.bumpVersion(of: table, in: db)
        try db.execute(
            sql: """
                DELETE FROM \(SQLiteChangeLog.changesTable) WHERE list = ?;
                INSERT INTO \(SQLiteChangeLog.historyTable) (list, floor) VALUES (?, ?)
                ON CONFLICT (list) DO UPDATE SET floor = excluded.floor
                """,
            arguments: [list.name, list.name, version]
        )
        return version
    }

    /// A record's values in column order, checked against the list's rules.
    static func arguments(
        _ record: Record,
        columns: [String],
        idField: String,
        idType: FieldType,
        types: [String: FieldType],
        rules: FieldRules
    ) throws -> StatementArguments {
        var fields = record.fields
        let id = fields.removeValue(forKey: idField) ?? .null
        switch (id, idType) {
        case (.integer, _), (.string, .string):
            break
        case (.string(let text), .integer) where Int64(text) != nil:
            break
        default:
            throw DataMediatorError(
                .invalidItem,
                "bad id",
                fieldProblems: [
                    FieldProblem(
                        field: idField,
                        detail:
                            "must be \(idType == .integer ? "a whole number" : "a non-empty string or a whole number")"
                    )
                ]
            )
        }
        if case .string(let text) = id, text.isEmpty {
            throw DataMediatorError(
                .invalidItem,
                "bad id",
                fieldProblems: [FieldProblem(field: idField, detail: "must not be empty")]
            )
        }
        try rules.check(fields)
        var values: [DatabaseValue] = []
        values.reserveCapacity(columns.count)
        for column in columns {
            let value = column == idField ? id : (fields[column] ?? .null)
            if types[column] == .json, value != .null {
                var writer = JSONWriter()
                writer.write(value)
                values.append(writer.string.databaseValue)
            } else if column == idField, idType == .integer, case .string(let text) = value, let whole = Int64(text) {
                values.append(whole.databaseValue)
            } else {
                values.append(value.databaseValue)
            }
        }
        return StatementArguments(values.map { $0 as (any DatabaseValueConvertible)? })
    }
}
