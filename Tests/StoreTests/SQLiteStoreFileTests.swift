import DataMediatorSQL
import Foundation
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
        #expect(folderError?.message.contains("SQLite cannot open it") == true, "\(String(describing: folderError))")
    }
}
