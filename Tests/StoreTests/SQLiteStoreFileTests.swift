import DataMediator
import DataMediatorSQL
import Foundation
import GRDB
import Testing

@testable import DataMediatorSQLite

/// A store file SQLite cannot use is named in the operator's terms, not by SQLite's error
/// code and the statement the service ran ("SQLite error 26: file is not a database - while
/// executing `SELECT * FROM sqlite_master LIMIT 1`").
@Suite struct SQLiteStoreFileTests {
    @Test func aFileThatIsNotADatabaseIsNamedAsSuch() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dm-file-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("store.sqlite").path
        try Data(repeating: 0x5A, count: 8_192).write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: StoreError.self) { _ = try SQLiteStore(path: path) }
        #expect(
            error?.message.hasSuffix(
                "it is not a SQLite database (a file of another kind, or one encrypted); "
                    + "name another file, or move this one away to have a new store made"
            ) == true,
            "\(String(describing: error))"
        )
        #expect(error?.message.contains("SQLite error") == false)
        // A folder where the file should be.
        let asFolder = folder.appendingPathComponent("folder.sqlite")
        try FileManager.default.createDirectory(at: asFolder, withIntermediateDirectories: true)
        let folderError = #expect(throws: StoreError.self) { _ = try SQLiteStore(path: asFolder.path) }
        #expect(folderError?.message.contains(": it is a folder;") == true, "\(String(describing: folderError))")
    }
}

extension SQLiteStoreFileTests {
    /// A store file moved away under the service takes no write: the service holds the
    /// moved file open, so a write it answered would be lost with it. Moved back, it
    /// takes writes again.
    @Test func aStoreFileMovedAwayTakesNoWriteUntilItIsBack() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dm-moved-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("store.sqlite").path
        let store = try SQLiteStore(path: path)
        try await store.database.write { try $0.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY)") }
        let insert: @Sendable (Int) async throws -> Void = { id in
            try await store.transactions.write { session in
                try await session.execute("INSERT INTO notes (id) VALUES (?)", [.integer(Int64(id))])
            }
        }
        try await insert(1)
        let moved = folder.appendingPathComponent("moved.sqlite").path
        try FileManager.default.moveItem(atPath: path, toPath: moved)
        await #expect {
            try await insert(2)
        } throws: { error in
            guard let error = error as? DataMediatorError else { return false }
            return error.code == .unavailable && error.message.contains("no longer where the service opened it")
        }
        // Another file in its place is not the store either.
        try Data("another file".utf8).write(to: URL(fileURLWithPath: path))
        await #expect(throws: DataMediatorError.self) { try await insert(3) }
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.moveItem(atPath: moved, toPath: path)
        try await insert(4)
        let ids = try await store.database.read { try Int.fetchAll($0, sql: "SELECT id FROM notes ORDER BY id") }
        #expect(ids == [1, 4])
    }
}
