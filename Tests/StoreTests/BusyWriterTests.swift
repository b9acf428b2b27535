import DataMediator
import DataMediatorSQL
import DataMediatorTesting
import Foundation
import GRDB
import Testing

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
}
