import DataMediator
import DataMediatorTesting
import Testing

@testable import DataMediatorSQL

/// A store made by an earlier release, which kept per table the stamp the service had
/// accounted for (`data_mediator_outside_writes`) and whose SQLite triggers raised the
/// counter itself, is carried over when it is opened: changes the watch had not recorded
/// yet are recorded once, and each change is counted once.
@Suite struct StampLogUpgradeTests {
    @Test(arguments: [WritableKind.sqlite, .postgres])
    func changesNotRecordedBeforeTheUpgradeAreRecordedOnce(kind: WritableKind) async throws {
        let (subject, transactions, start) = try await OutsideWritesTests.subject(kind)
        try await transactions.write { session in
            // The earlier release's table, one change behind the table's counter.
            try await session.execute(
                "CREATE TABLE data_mediator_outside_writes (source text PRIMARY KEY NOT NULL, stamp bigint NOT NULL)",
                []
            )
            try await session.execute(
                "INSERT INTO data_mediator_outside_writes SELECT source, stamp - 1 FROM \(ServiceTables.stamps)",
                []
            )
            for statement in ServiceTables.schema(session.dialect) { try await session.execute(statement, []) }
        }
        let recorded = try await OutsideWrites.check(transactions).recorded
        #expect(recorded.map(\.table) == ["notes"])
        let changes = try await subject.adapter.changes(view: "flat", since: String(start), limit: nil)
        #expect(changes.entries.map(\.operation) == [.reload])
        #expect(try await OutsideWrites.check(transactions).recorded.isEmpty)
        await #expect(throws: (any Error).self, "the earlier release's table is gone") {
            try await transactions.read { try await $0.integer("SELECT count(*) FROM data_mediator_outside_writes") }
        }
    }

    /// SQLite's triggers of an earlier release raised the counter: they go, or each change
    /// counted twice.
    @Test func anEarlierReleasesSQLiteTriggersGo() async throws {
        let (subject, transactions, _) = try await OutsideWritesTests.subject(.sqlite)
        try await transactions.write { session in
            try await session.execute(
                """
                CREATE TRIGGER data_mediator_stamp_insert_notes AFTER INSERT ON notes BEGIN
                    UPDATE \(ServiceTables.stamps) SET stamp = stamp + 1 WHERE source = 'notes';
                END
                """,
                []
            )
            for statement in TableStamps.prepareStatements(for: "notes", .sqlite) {
                try await session.execute(statement, [])
            }
        }
        let stamp = TableStamps.currentSQL(of: ["notes"])
        let before = try await transactions.read { try await $0.integer(stamp) }
        try await subject.writeBehindTheServicesBack("INSERT INTO notes (id, title, rev) VALUES ('x1', 'outside', 1)")
        #expect(try await transactions.read { try await $0.integer(stamp) } == before + 1)
    }
}
