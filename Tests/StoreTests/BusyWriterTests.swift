import DataMediatorSQL
import DataMediatorTesting
import Foundation
import GRDB
import Testing

@testable import DataMediator
@testable import DataMediatorSQLite

/// A write through the API while another program (an import) holds the SQLite store's one
/// writer past the busy timeout answers `unavailable` (503, retry), never a server error,
/// and stores nothing.
@Suite struct BusyWriterTests {
    @Test func aWriteWhileAnotherProgramHoldsTheWriterIsUnavailable() async throws {
        let subject = try await WritableSubject(.sqlite)
        let path = try #require(subject.storePath)
        // Another program: a connection of its own that keeps its write transaction open.
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true
        let other = try DatabaseQueue(path: path, configuration: configuration)
        try await other.writeWithoutTransaction { db in try db.execute(sql: "BEGIN IMMEDIATE") }
        let error = await #expect(throws: DataMediatorError.self) {
            _ = try await subject.adapter.create(body: .object(["id": .string("a"), "data": .object([:])]))
        }
        #expect(error?.code == .unavailable)
        try await other.writeWithoutTransaction { db in try db.execute(sql: "COMMIT") }
        let after = try await subject.adapter.create(body: .object(["id": .string("b"), "data": .object([:])]))
        #expect(after.cell.id == "b")
        let walk = try await SampleList.walk(subject.adapter, view: "flat", limit: 10)
        #expect(walk.items.map(\.id) == ["b"])
    }

    /// Another program's held writer, named as such (not SQLite's "database is locked"),
    /// when opening the store (whose schema is made in a write) or importing into it.
    @Test func openingOrImportingWhileAnotherProgramHoldsTheWriterSaysSo() async throws {
        let subject = try await WritableSubject(.sqlite)
        let path = try #require(subject.storePath)
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true
        configuration.busyMode = .timeout(10)
        let other = try DatabaseQueue(path: path, configuration: configuration)
        try await other.writeWithoutTransaction { db in try db.execute(sql: "BEGIN IMMEDIATE") }
        let opening = #expect(throws: StoreError.self) { _ = try SQLiteStore(path: path) }
        #expect(opening?.message.contains("another program holds the SQLite store's one writer") == true, "\(opening)")
        let provider = try #require(subject.adapter.provider as? any SQLDataProvider)
        let importing = await #expect(throws: StoreError.self) {
            try await provider.reader.transactions.bulkWrite { session in
                try await session.execute("DELETE FROM notes", [])
            }
        }
        #expect(importing?.message.contains("another program holds the SQLite store's one writer") == true)
        try await other.writeWithoutTransaction { db in try db.execute(sql: "COMMIT") }
        _ = try SQLiteStore(path: path)
    }
}
