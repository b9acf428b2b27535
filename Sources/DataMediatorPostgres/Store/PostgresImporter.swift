import DataMediator
import DataMediatorSQL
import Logging
import PostgresNIO

/// Loads records into a table list's table in PostgreSQL in bulk: each record is checked
/// against the list's field rules and inserted, many to a transaction, each transaction
/// holding the store's version lock (writes of the service wait for it).
///
/// Without `skipBad`, the whole import is one transaction: the first bad record (or an id
/// that exists) stops it and nothing of it is stored. With `skipBad`, bad records are
/// reported and left out, and every `batch` records are committed. Either way the store's
/// version goes up by one and the list's change history restarts after the import (a
/// client holding older pages gets `410` and reloads), and every replica is notified.
public struct PostgresImporter: Sendable {
    private let store: PostgresStore
    private let plan: ImportPlan
    /// The plan's insert, skipping (and so telling) an id that exists.
    private let insertSQL: String

    /// An importer into `list`, a list over a table of `store` (made by
    /// ``PostgresStore/provider(for:source:)`` first).
    ///
    /// - Throws: `StoreError` when the list is over a query.
    public init(store: PostgresStore, list: ListDefinition, source: StoreSource) throws {
        self.store = store
        self.plan = try ImportPlan(list: list, source: source)
        self.insertSQL = plan.insertSQL + " ON CONFLICT DO NOTHING RETURNING 1"
    }

    /// Imports `records`; `progress` is called after every `batch` records with the count so far.
    ///
    /// - Throws: `ImportStopped` for the first bad record when `skipBad` is false (nothing
    ///   is stored then); database errors.
    public func run(
        _ records: some Sequence<ImportRecord>,
        skipBad: Bool,
        batch: Int = 10_000,
        progress: (Int) -> Void = { _ in }
    ) async throws -> ImportSummary {
        var summary = ImportSummary()
        var iterator = records.makeIterator()
        var finished = false
        let logger = store.logger
        // Without skipBad, one transaction for everything; with it, one per batch.
        let perTransaction = skipBad ? max(1, batch) : Int.max
        while !finished {
            try await store.bulkWrite { connection in
                let session = PostgresSession(connection: connection, logger: logger)
                try await StoreVersion.lock(session)
                var count = 0
                while count < perTransaction {
                    guard let record = iterator.next() else {
                        finished = true
                        break
                    }
                    count += 1
                    var rejection: ImportRejection?
                    do {
                        let values = try plan.values(of: record)
                        let rows = try await connection.query(
                            PostgresQuery(sql: insertSQL, values: values),
                            logger: logger
                        )
                        var inserted = false
                        for try await _ in rows { inserted = true }
                        if !inserted {
                            rejection = ImportRejection(line: record.line, reason: "the id exists already")
                        }
                    } catch let error as DataMediatorError {
                        rejection = ImportRejection(line: record.line, error: error)
                    }
                    try summary.count(rejection, skipBad: skipBad, batch: batch, progress: progress)
                }
                if finished { summary.version = try await plan.finish(session) }
            }
        }
        progress(summary.imported + summary.rejected)
        return summary
    }
}
