import DataMediator
import DataMediatorTesting
import Foundation
import GRDB
import Testing

@testable import DataMediatorSQLite

/// The page readers: taken without waiting, read-only, and as fresh as the pool.
@Suite struct SQLitePageReadersTests {
    @Test func aReadWhileEveryConnectionIsInUseAnswersNilAtOnceWithoutRunningItsBody() throws {
        let fixture = try SQLiteFixture()
        let readers = try SQLitePageReaders(path: fixture.store.database.path, count: 1)
        var ranInside = false
        let outer = try readers.read { db in
            let inner = try readers.read { _ in
                ranInside = true
                return 1
            }
            #expect(inner == nil)
            return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sample")
        }
        #expect(!ranInside)
        #expect(outer == SampleList.items().count)
        // The connection is back once the read is done.
        #expect(try readers.read { _ in 1 } == 1)
    }

    @Test func readsSeeEveryCommittedWriteAndCannotWrite() throws {
        let fixture = try SQLiteFixture()
        let readers = try SQLitePageReaders(path: fixture.store.database.path, count: 2)
        let count = { try readers.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sample") } }
        #expect(try count() == SampleList.items().count)
        try fixture.store.database.write { db in try db.execute(sql: "DELETE FROM sample") }
        #expect(try count() == 0)
        #expect(throws: DatabaseError.self) {
            try readers.read { db in try db.execute(sql: "DELETE FROM sample") }
        }
    }

    /// A database another connection holds locked answers nil (the page then reads through
    /// the pool, which waits on its own threads), and the reader works again afterwards.
    @Test func aBusyDatabaseAnswersNilInsteadOfWaitingOrFailing() throws {
        let fixture = try SQLiteFixture()
        // A database in the rollback journal mode, so that one connection can lock out readers.
        let path = fixture.directory.appendingPathComponent("locked.sqlite").path
        let holder = try DatabaseQueue(path: path)
        try holder.write { db in try db.execute(sql: "CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1)") }
        let readers = try SQLitePageReaders(path: path, count: 1)
        let count = { try readers.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") } }
        #expect(try count() == 1)
        let whileLocked = try holder.inDatabase { db in
            try db.execute(sql: "BEGIN EXCLUSIVE")
            defer { try? db.execute(sql: "COMMIT") }
            return Result { try count() }
        }
        #expect(try whileLocked.get() == nil)
        #expect(try count() == 1)
    }

    /// Pages at once from more tasks than there are page readers: those that find none
    /// free read through the pool, and every page is the right one.
    @Test func pagesFromMoreTasksThanReadersAreAllRight() async throws {
        let fixture = try SQLiteFixture()
        let adapter = try fixture.adapter()
        let expected = try await adapter.page(view: nil, limit: "7", cursor: nil)
        try await withThrowingTaskGroup(of: Page.self) { group in
            for _ in 0..<200 {
                group.addTask { try await adapter.page(view: nil, limit: "7", cursor: nil) }
            }
            for try await page in group {
                #expect(page.json() == expected.json())
            }
        }
    }
}
