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
        let reader = try Self.reader(of: path, holding: "notes")
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

    /// A checkpoint that does not wait (an import's last step) writes back what it can
    /// while another program reads an older snapshot, at once: emptying the log waited
    /// for that reader up to the busy timeout, holding off every write of a serving
    /// process meanwhile (5 s, then `503`), and then failed.
    @Test func aCheckpointThatDoesNotWaitLeavesAnOlderReaderBe() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dm-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("store.sqlite").path
        let store = try SQLiteStore(path: path)
        try await store.database.write { db in
            try db.execute(sql: "CREATE TABLE t (n INTEGER)")
            try db.execute(sql: "INSERT INTO t VALUES (1)")
        }
        let reader = try Self.reader(of: path, holding: "t")
        try await store.database.write { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
        let timeout = {
            try await store.database.writeWithoutTransaction { try Int.fetchOne($0, sql: "PRAGMA busy_timeout") }
        }
        let before = try await timeout()
        // Waiting, it failed (busy) once the timeout was spent.
        #expect(throws: Never.self) { try store.checkpoint(waiting: false) }
        // The writer's busy timeout is given back for the writes after it.
        #expect(try await timeout() == before && before ?? 0 > 0)
        try reader.inDatabase { db in try db.execute(sql: "COMMIT") }
        #expect(try await store.database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") } == 2)
    }

    /// Another program's connection to the store at `path`, in a read transaction of
    /// `table` left open: the snapshot it holds keeps later writes in the log.
    static func reader(of path: String, holding table: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true
        let reader = try DatabaseQueue(path: path, configuration: configuration)
        try reader.inDatabase { db in
            try db.execute(sql: "BEGIN")
            _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table)")
        }
        return reader
    }
}
