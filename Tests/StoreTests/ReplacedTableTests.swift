import DataMediatorTesting
import Testing

@testable import DataMediator
@testable import DataMediatorSQL

/// A served table whose triggers another program took away in other ways than a plain
/// drop and create: renamed over while the old one is kept (SQLite keeps the triggers on
/// the old one, under its new name), one trigger dropped, made again in another case. The
/// watch gives the table its triggers back and records the change; the old table's
/// writes are not the served table's.
@Suite struct ReplacedTableTests {
    @Test(arguments: [WritableKind.sqlite, .postgres])
    func aTableRenamedOverWhileTheOldOneIsKeptIsWatchedAgain(kind: WritableKind) async throws {
        let (subject, transactions, start) = try await OutsideWritesTests.subject(kind)
        for statement in [
            "CREATE TABLE notes_new AS SELECT * FROM notes",
            "INSERT INTO notes_new (id, title, rev) VALUES ('r1', 'fresh', 1)",
            "ALTER TABLE notes RENAME TO notes_old", "ALTER TABLE notes_new RENAME TO notes",
        ] {
            try await subject.writeBehindTheServicesBack(statement)
        }
        let look = try await OutsideWrites.check(transactions, indexes: subject.tableIndexes)
        #expect(look.replaced == ["notes"])
        #expect(look.recorded.map(\.table) == ["notes"])
        let changes = try await subject.adapter.changes(view: "flat", since: String(start), limit: nil)
        #expect(changes.entries.map(\.operation) == [.reload])
        // The served table's changes are seen again; the old one's are not the served one's.
        try await subject.writeBehindTheServicesBack("INSERT INTO notes (id, title, rev) VALUES ('r2', 'later', 1)")
        #expect(try await OutsideWrites.check(transactions).recorded.map(\.table) == ["notes"])
        try await subject.writeBehindTheServicesBack("INSERT INTO notes_old (id, title, rev) VALUES ('o1', 'old', 1)")
        #expect(try await OutsideWrites.check(transactions).recorded.isEmpty)
        #expect(try await subject.adapter.sectionInfo(view: "flat").total == 3)
    }

    @Test(arguments: [WritableKind.sqlite, .postgres])
    func aDroppedTriggerIsMadeAgain(kind: WritableKind) async throws {
        let (subject, transactions, _) = try await OutsideWritesTests.subject(kind)
        try await subject.writeBehindTheServicesBack(
            kind == .sqlite
                ? "DROP TRIGGER data_mediator_stamp_log_delete_notes"
                : "DROP TRIGGER data_mediator_stamp_delete ON notes"
        )
        #expect(try await OutsideWrites.check(transactions).replaced == ["notes"])
        try await subject.writeBehindTheServicesBack("DELETE FROM notes WHERE id = 'n1'")
        #expect(try await OutsideWrites.check(transactions).recorded.map(\.table) == ["notes"])
        #expect(try await subject.adapter.sectionInfo(view: "flat").total == 0)
    }

    /// The function PostgreSQL's triggers run, dropped with them (`CASCADE`): the watch makes
    /// both again, and another program's writes are seen again (they went unseen, the watch
    /// failing every look).
    @Test func aDroppedStampFunctionIsMadeAgain() async throws {
        let (subject, transactions, _) = try await OutsideWritesTests.subject(.postgres)
        try await subject.writeBehindTheServicesBack("DROP FUNCTION data_mediator_stamp() CASCADE")
        #expect(try await OutsideWrites.check(transactions).replaced == ["notes"])
        try await subject.writeBehindTheServicesBack("DELETE FROM notes WHERE id = 'n1'")
        #expect(try await OutsideWrites.check(transactions).recorded.map(\.table) == ["notes"])
        #expect(try await subject.adapter.sectionInfo(view: "flat").total == 0)
    }

    /// SQLite's names ignore case: a table made again as `NOTES` is the served `notes`.
    @Test func aSQLiteTableMadeAgainInAnotherCaseIsWatchedAgain() async throws {
        let (subject, transactions, _) = try await OutsideWritesTests.subject(.sqlite)
        for statement in [
            "CREATE TABLE notes_new AS SELECT * FROM notes", "DROP TABLE notes",
            "ALTER TABLE notes_new RENAME TO NOTES",
        ] {
            try await subject.writeBehindTheServicesBack(statement)
        }
        #expect(try await OutsideWrites.check(transactions, indexes: subject.tableIndexes).replaced == ["notes"])
        try await subject.writeBehindTheServicesBack("DELETE FROM NOTES WHERE id = 'n1'")
        #expect(try await OutsideWrites.check(transactions).recorded.map(\.table) == ["notes"])
        #expect(try await subject.adapter.sectionInfo(view: "flat").total == 0)
    }
}
