import DataMediatorTesting
import Testing

@testable import DataMediator
@testable import DataMediatorSQL

/// Changes to a list's table that the service did not make (another program's writes, an
/// import through another list): the watch (`OutsideWrites.check`) records each at a
/// version of its own, and every list over the table answers one `reload` there in its
/// feed, after the changes logged before it; the service's own writes never look like one.
@Suite struct OutsideWritesTests {
    static func note(_ id: String, _ title: String) -> JSONValue {
        .object(["id": .string(id), "data": .object(["title": .string(title), "score": .integer(1)])])
    }

    /// A subject over `kind` holding one item written through the service, its store's
    /// transactions and the version after that write.
    static func subject(_ kind: WritableKind) async throws -> (WritableSubject, any SQLTransactions, Int64) {
        let subject = try await WritableSubject(kind)
        let provider = try #require(subject.adapter.provider as? any SQLDataProvider)
        _ = try await subject.adapter.create(body: note("n1", "first"), scope: nil)
        return (subject, provider.reader.transactions, try await subject.adapter.currentVersion())
    }

    @Test(arguments: [WritableKind.sqlite, .postgres])
    func anotherProgramsWriteReachesTheFeedAsOneReload(kind: WritableKind) async throws {
        let (subject, transactions, start) = try await Self.subject(kind)
        let adapter = subject.adapter
        _ = try await adapter.create(body: Self.note("n2", "second"), scope: nil)
        _ = try await adapter.patch(id: "n1", body: .object(["data": .object(["title": .string("1st")])]), scope: nil)
        #expect(
            try await OutsideWrites.check(transactions).recorded.isEmpty,
            "the service's own writes are accounted for"
        )

        try await subject.writeBehindTheServicesBack("INSERT INTO notes (id, title, rev) VALUES ('x1', 'outside', 1)")
        // A write through the service before the watch looks does not hide the other one.
        _ = try await adapter.create(body: Self.note("n3", "third"), scope: nil)
        let recorded = try await OutsideWrites.check(transactions).recorded
        #expect(recorded.map(\.table) == ["notes"])
        let version = try #require(recorded.first?.version)
        #expect(version == (try await adapter.currentVersion()), "a version of its own, the store's newest")
        #expect(try await OutsideWrites.check(transactions).recorded.isEmpty, "each change is recorded once")

        let changes = try await adapter.changes(view: "flat", since: String(start), limit: nil)
        #expect(changes.entries.map(\.operation) == [.insert, .update, .insert, .reload])
        #expect(changes.entries.last?.version == version)
        // Paged: the reload comes once the changes before it are read.
        let first = try await adapter.changes(view: "flat", since: String(start), limit: "3")
        #expect(first.entries.map(\.operation) == [.insert, .update, .insert])
        let rest = try await adapter.changes(
            view: "flat",
            since: String(try #require(first.entries.last?.version)),
            limit: "3"
        )
        #expect(rest.entries.map(\.operation) == [.reload])
        #expect(try await adapter.changes(view: "flat", since: String(version), limit: nil).entries.isEmpty)
        // Lists over queries and read-only lists reload from the tables' last change.
        let last = try await transactions.read { try await StoreVersion.lastChange(of: ["notes"], $0) }
        #expect(last.lastChange == version)

        // The service's writes after it are logged as before, with no reload of their own.
        _ = try await adapter.delete(id: "n2", scope: nil)
        #expect(try await OutsideWrites.check(transactions).recorded.isEmpty)
        let later = try await adapter.changes(view: "flat", since: String(version), limit: nil)
        #expect(later.entries.map(\.operation) == [.delete])

        // A second change outside: a feed from before the first still gets the first reload
        // (the one after the second would follow changes to items the client never had).
        try await subject.writeBehindTheServicesBack("INSERT INTO notes (id, title, rev) VALUES ('x2', 'again', 1)")
        let second = try #require(try await OutsideWrites.check(transactions).recorded.first?.version)
        #expect(second > version)
        let fromStart = try await adapter.changes(view: "flat", since: String(start), limit: nil)
        #expect(fromStart.entries.map(\.operation) == [.insert, .update, .insert, .reload])
        #expect(fromStart.entries.last?.version == version)
        let fromFirst = try await adapter.changes(view: "flat", since: String(version), limit: nil)
        #expect(fromFirst.entries.map(\.operation) == [.delete, .reload])
        #expect(fromFirst.entries.last?.version == second)
    }

    /// A statement of another program that changes no row (a cron's `DELETE ... WHERE
    /// expired` with nothing expired) is no change: PostgreSQL's statement triggers fired
    /// for it, and every client reloaded.
    @Test(arguments: [WritableKind.sqlite, .postgres])
    func aStatementThatChangesNoRowIsNoChange(kind: WritableKind) async throws {
        let subject = try await WritableSubject(kind)
        let provider = try #require(subject.adapter.provider as? any SQLDataProvider)
        _ = try await subject.adapter.create(body: Self.note("n1", "first"), scope: nil)
        for statement in [
            "DELETE FROM notes WHERE id = 'none'", "UPDATE notes SET title = 'x' WHERE id = 'none'",
            "INSERT INTO notes (id, title, rev) SELECT 'y', 'y', 1 WHERE 1 = 0",
        ] {
            try await subject.writeBehindTheServicesBack(statement)
        }
        #expect(try await OutsideWrites.check(provider.reader.transactions).recorded.isEmpty)
        try await subject.writeBehindTheServicesBack("DELETE FROM notes WHERE id = 'n1'")
        #expect(try await OutsideWrites.check(provider.reader.transactions).recorded.map(\.table) == ["notes"])
    }

    /// A table another program replaced (made anew and renamed over the old one, as a bulk
    /// refresh does) lost the triggers that count its changes: the watch gives them back
    /// and records the replacement, so later changes are seen again.
    @Test(arguments: [WritableKind.sqlite, .postgres])
    func aReplacedTableIsWatchedAgain(kind: WritableKind) async throws {
        let (subject, transactions, start) = try await Self.subject(kind)
        let adapter = subject.adapter
        let indexes = try await subject.serviceIndexes(on: "notes")
        #expect(!indexes.isEmpty)
        for statement in [
            "CREATE TABLE notes_new AS SELECT * FROM notes",
            "INSERT INTO notes_new (id, title, rev) VALUES ('r1', 'fresh', 1)",
            "DROP TABLE notes", "ALTER TABLE notes_new RENAME TO notes",
        ] {
            try await subject.writeBehindTheServicesBack(statement)
        }
        #expect(try await subject.serviceIndexes(on: "notes").isEmpty, "the indexes went with the old table")
        let look = try await OutsideWrites.check(transactions, indexes: subject.tableIndexes)
        let replaced = try #require(look.recorded.first)
        #expect(replaced.table == "notes")
        #expect(look.replaced == ["notes"])
        #expect(try await subject.serviceIndexes(on: "notes") == indexes, "the lists' indexes are made again")
        #expect(
            try await adapter.changes(view: "flat", since: String(start), limit: nil).entries.map(\.operation) == [
                .reload
            ]
        )
        #expect(try await adapter.sectionInfo(view: "flat").sections.map(\.count).reduce(0, +) == 2)
        // Its triggers are back: the next change is seen.
        try await subject.writeBehindTheServicesBack("INSERT INTO notes (id, title, rev) VALUES ('r2', 'later', 1)")
        #expect(try await OutsideWrites.check(transactions).recorded.map(\.table) == ["notes"])
        #expect(try await OutsideWrites.check(transactions).recorded.isEmpty)
    }

    /// A table another program dropped: its sections and counts, kept per stamp, are read
    /// anew (and fail as its pages do) rather than answered from before, and its feeds
    /// answer a `reload`; recorded once while it stays gone, and again once it is back.
    @Test(arguments: [WritableKind.sqlite, .postgres])
    func aDroppedTableIsRecordedOnceAndItsSectionsAreNotKept(kind: WritableKind) async throws {
        let (subject, transactions, start) = try await Self.subject(kind)
        let adapter = subject.adapter
        #expect(try await adapter.sectionInfo(view: "flat").sections.map(\.count) == [1], "counts kept")
        try await subject.writeBehindTheServicesBack("DROP TABLE notes")
        let look = try await OutsideWrites.check(transactions)
        #expect(look.gone == ["notes"])
        let recorded = try #require(look.recorded.first)
        #expect(recorded.table == "notes" && look.recorded.count == 1)
        // Its sections are read anew: refused as its pages are (`503`, `/ready` says why).
        let refused = await #expect(throws: DataMediatorError.self) {
            _ = try await adapter.sectionInfo(view: "flat")
        }
        #expect(refused?.code == .unavailable, "\(String(describing: refused))")
        let again = try await OutsideWrites.check(transactions, gone: Set(look.gone))
        #expect(again.recorded.isEmpty && again.gone == ["notes"], "recorded once while it stays gone")
        #expect(again.version == recorded.version)
        // Back (made again, as a restore does): its triggers are made again and it is recorded.
        try await subject.writeBehindTheServicesBack(
            "CREATE TABLE notes (id TEXT PRIMARY KEY, title TEXT, score INTEGER, rev INTEGER)"
        )
        let back = try await OutsideWrites.check(transactions, indexes: subject.tableIndexes, gone: Set(again.gone))
        #expect(back.gone.isEmpty && back.replaced == ["notes"], "\(back.replaced)")
        #expect(try await adapter.sectionInfo(view: "flat").sections.isEmpty)
        #expect(
            try await adapter.changes(view: "flat", since: String(start), limit: nil).entries.map(\.operation).last
                == .reload
        )
    }

    /// Logical replication applies another database's writes with the session's
    /// `session_replication_role` at `replica`, under which ordinary triggers do not fire:
    /// the stamp's triggers fire always, so a replicated table's changes are seen.
    @Test func aReplicatedWriteIsSeen() async throws {
        let subject = try await WritableSubject(.postgres)
        let provider = try #require(subject.adapter.provider as? any SQLDataProvider)
        try await subject.writeBehindTheServicesBack(
            """
            DO $$ BEGIN
                PERFORM set_config('session_replication_role', 'replica', true);
                INSERT INTO notes (id, title, rev) VALUES ('copied', 'from the publisher', 1);
            END $$
            """
        )
        #expect(try await OutsideWrites.check(provider.reader.transactions).recorded.map(\.table) == ["notes"])
    }

    @Test(arguments: [WritableKind.sqlite, .postgres])
    func anImportReloadsTheOtherListsOverItsTable(kind: WritableKind) async throws {
        let subject = try await WritableSubject(kind)
        let sibling = try #require(try await subject.sibling("others", scope: nil))
        _ = try await sibling.create(body: Self.note("n1", "first"), scope: nil)
        let start = try await sibling.currentVersion()
        let summary = try await subject.importer().run(
            [ImportRecord(line: 1, fields: ["id": .string("i1"), "title": .string("imported"), "score": .integer(2)])],
            skipBad: false
        )
        #expect(summary.imported == 1)
        let changes = try await sibling.changes(view: "flat", since: String(start), limit: nil)
        #expect(changes.entries.map(\.operation) == [.reload])
        #expect(changes.entries.first?.version == summary.version)
        let provider = try #require(subject.adapter.provider as? any SQLDataProvider)
        #expect(
            try await OutsideWrites.check(provider.reader.transactions).recorded.isEmpty,
            "the import is recorded already"
        )
    }

    /// A trigger of the table that changes the written row again (in the write's own
    /// statement): the write answers the row as stored, and the lists reload, since the
    /// logged change is the write as its statement answered it.
    @Test(arguments: [WritableKind.sqlite, .postgres])
    func aTriggerThatChangesTheRowAgainMakesTheListsReload(kind: WritableKind) async throws {
        let (subject, transactions, start) = try await Self.subject(kind)
        let adapter = subject.adapter
        let triggers =
            kind == .sqlite
            ? [
                """
                CREATE TRIGGER shout AFTER UPDATE ON notes WHEN NEW.title <> upper(NEW.title) BEGIN
                UPDATE notes SET title = upper(NEW.title) WHERE id = NEW.id; END
                """
            ]
            : [
                """
                CREATE FUNCTION shout() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
                IF NEW.title <> upper(NEW.title) THEN UPDATE notes SET title = upper(title) WHERE id = NEW.id; END IF;
                RETURN NULL; END $$
                """,
                "CREATE TRIGGER shout AFTER UPDATE ON notes FOR EACH ROW EXECUTE FUNCTION shout()",
            ]
        for trigger in triggers { try await subject.writeBehindTheServicesBack(trigger) }
        let patched = try await adapter.patch(
            id: "n1",
            body: .object(["data": .object(["title": .string("quiet")])]),
            scope: nil
        )
        #expect(patched.cell.data.objectValue?["title"] == .string("QUIET"), "the row as the table holds it")
        let recorded = try await OutsideWrites.check(transactions).recorded
        #expect(recorded.map(\.table) == ["notes"])
        let changes = try await adapter.changes(view: "flat", since: String(start), limit: nil)
        #expect(changes.entries.map(\.operation) == [.update, .reload])
        #expect(changes.entries.last?.version == recorded.first?.version)
        // A write the trigger leaves alone is the write's one step again.
        _ = try await adapter.patch(id: "n1", body: .object(["data": .object(["score": .integer(5)])]), scope: nil)
        #expect(try await OutsideWrites.check(transactions).recorded.isEmpty)
    }
}
