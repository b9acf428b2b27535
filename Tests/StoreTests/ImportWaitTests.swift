import DataMediatorSQL
import DataMediatorSQLite
import Foundation
import GRDB
import Testing

@testable import DataMediator

/// An import notes when its first transaction held the store's writes (``ImportSummary/began``):
/// the command leaves the time before it out of its rate and names it (probe 81: an import
/// that waited 4.6 s for another import's lock printed "in 4.6 s (0 records/s)").
@Suite struct ImportWaitTests {
    @Test func anImportBeginsOnlyOnceTheStoresOtherWriterLetsGo() async throws {
        let subject = try await WritableSubject(.sqlite)
        let path = try #require(subject.storePath)
        let provider = try #require(subject.adapter.provider as? any SQLDataProvider)
        let importer = try SQLImporter(reader: provider.reader, list: subject.definition, source: subject.source)
        // Another program holds the store's one writer until let go, a second after the
        // import asked for it, by a thread of its own (the full parallel run starves the
        // tasks for longer than the import's busy timeout).
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true
        let other = try DatabaseQueue(path: path, configuration: configuration)
        try await other.writeWithoutTransaction { db in try db.execute(sql: "BEGIN IMMEDIATE") }
        let asked = ContinuousClock.now
        let release = Thread {
            Thread.sleep(forTimeInterval: 1)
            try? other.writeWithoutTransaction { db in try db.execute(sql: "COMMIT") }
        }
        release.start()
        let summary = try await importer.run(
            [ImportRecord(line: 1, fields: ["id": .string("w1"), "title": .string("waited")])],
            skipBad: false
        )
        #expect(summary.imported == 1)
        let began = try #require(summary.began)
        #expect(began - asked >= .seconds(1), "it began before the other writer let go")
    }
}
