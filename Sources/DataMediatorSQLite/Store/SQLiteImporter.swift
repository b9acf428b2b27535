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
    /// One record to import.
    public typealias Record = ImportRecord
    /// A record that was not imported, and why.
    public typealias Rejection = ImportRejection
    /// What an import did.
    public typealias Summary = ImportSummary
    /// The first bad record of an import without `skipBad`: nothing was stored.
    public typealias Stopped = ImportStopped

    private let store: SQLiteStore
    private let plan: ImportPlan

    /// An importer into `list`, a writable or read-only list over a table of `store`.
    ///
    /// - Throws: `StoreError` when the list is over a query.
    public init(store: SQLiteStore, list: ListDefinition, source: StoreSource) throws {
        self.store = store
        self.plan = try ImportPlan(list: list, source: source)
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
        // Without skipBad, one transaction for everything; with it, one per batch.
        let perTransaction = skipBad ? max(1, batch) : Int.max
        while !finished {
            try store.database.writeWithoutTransaction { db in
                try db.inTransaction(.immediate) {
                    let statement = try db.cachedStatement(sql: plan.insertSQL)
                    var count = 0
                    while count < perTransaction {
                        guard let record = iterator.next() else {
                            finished = true
                            break
                        }
                        count += 1
                        let rejection: Rejection?
                        do {
                            let values = try plan.values(of: record)
                            let arguments: [(any DatabaseValueConvertible)?] = values.map { $0.databaseValue }
                            try statement.execute(arguments: StatementArguments(arguments))
                            rejection = nil
                        } catch let error as DataMediatorError {
                            rejection = Rejection(line: record.line, error: error)
                        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                            rejection = Rejection(
                                line: record.line,
                                reason: "the id exists already (or another constraint of the table fails)"
                            )
                        }
                        try summary.count(rejection, skipBad: skipBad, batch: batch, progress: progress)
                    }
                    if finished {
                        let session = SQLiteSession(db: db)
                        summary.version = try CallingThreadExecutor.run { [plan] in try await plan.finish(session) }
                    }
                    return .commit
                }
            }
        }
        progress(summary.imported + summary.rejected)
        return summary
    }
}
