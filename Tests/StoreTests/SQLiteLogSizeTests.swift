import DataMediator
import DataMediatorTesting
import Foundation
import GRDB
import Testing

@testable import DataMediatorSQLite

/// The SQLite store's write-ahead log grows while another program's read transaction keeps
/// the checkpoint from its start; once that reader is done and the log starts over, the
/// file is cut back (it stayed at its largest, 391 MB in an audit, until the store closed).
@Suite struct SQLiteLogSizeTests {
    @Test func theLogIsCutBackOnceALongReaderIsDone() async throws {
        let subject = try await WritableSubject(.sqlite)
        let path = try #require(subject.storePath)
        let log = path + "-wal"
        func logSize() throws -> Int {
            (try FileManager.default.attributesOfItem(atPath: log)[.size] as? Int) ?? 0
        }
        // Another program reads in one transaction, which keeps every write in the log.
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true
        let reader = try DatabaseQueue(path: path, configuration: configuration)
        try reader.inDatabase { db in
            try db.execute(sql: "BEGIN")
            _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM notes")
        }
        let limit = SQLiteStore.logSizeLimit
        var written = 0
        while try logSize() <= limit + limit / 2, written < 5_000 {
            let body: JSONValue = .object([
                "data": .object(["title": .string(String(repeating: "w", count: 2_000)), "score": .integer(1)])
            ])
            _ = try await subject.adapter.create(body: body, scope: nil)
            written += 1
        }
        #expect(try logSize() > limit, "the log grew past the limit while the reader read")
        try reader.inDatabase { db in try db.execute(sql: "COMMIT") }
        // The next writes check the log into the store; one after that starts it over.
        for _ in 0..<20 {
            _ = try await subject.adapter.create(
                body: .object(["data": .object(["title": .string("after"), "score": .integer(1)])]),
                scope: nil
            )
        }
        #expect(try logSize() <= limit, "the log is cut back to the limit")
    }
}
