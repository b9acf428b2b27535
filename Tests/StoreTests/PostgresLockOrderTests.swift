import DataMediatorTesting
import PostgresNIO
import Synchronization
import Testing

@testable import DataMediator
@testable import DataMediatorPostgres
@testable import DataMediatorSQL

/// A write of the service waits for the item's row another program holds, and takes no
/// lock that program's later write of the row needs (the table's stamp is counted in a
/// row of each writer's own, ``TableStamps``), so a program that holds a row and then
/// updates it while the service waits for that row ends well, and so does the service's
/// write after it.
@Suite struct PostgresLockOrderTests {
    @Test(arguments: ["patch", "replace", "delete"])
    func anotherProgramHoldingTheRowIsWaitedFor(write: String) async throws {
        let (subject, _, _) = try await OutsideWritesTests.subject(.postgres)
        let other = try #require(try await subject.otherProgram())
        let client = other.store.primary
        let logger = Logger(label: "other-program")
        let adapter = subject.adapter
        let data: JSONValue = .object(["title": .string("service")])
        try await client.withConnection { connection in
            try await connection.query("BEGIN", logger: logger)
            try await connection.query("SELECT 1 FROM notes WHERE id = 'n1' FOR UPDATE", logger: logger)
            let service = Task {
                switch write {
                case "patch": _ = try await adapter.patch(id: "n1", body: .object(["data": data]), scope: nil)
                case "replace": _ = try await adapter.replace(id: "n1", body: .object(["data": data]), scope: nil)
                default: _ = try await adapter.delete(id: "n1", scope: nil)
                }
            }
            // The service's write waits for the row this transaction holds.
            let deadline = ContinuousClock.now + .seconds(30)
            var waits = false
            while !waits, ContinuousClock.now < deadline {
                let waiting = try await connection.query(
                    """
                    SELECT count(*)::int8 FROM pg_stat_activity
                    WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'
                    """,
                    logger: logger
                )
                var rows = waiting.makeAsyncIterator()
                waits = try await rows.next()?.decode(Int64.self) ?? 0 > 0
                if !waits { try await Task.sleep(for: .milliseconds(10)) }
            }
            #expect(waits, "the service's write waits for the row")
            // PostgreSQL looks for a deadlock after `deadlock_timeout` (1 s) of waiting.
            try await connection.query("UPDATE notes SET title = 'outside' WHERE id = 'n1'", logger: logger)
            try await Task.sleep(for: .milliseconds(1_500))
            try await connection.query("COMMIT", logger: logger)
            try await service.value
        }
        var rows = try await client.query("SELECT title FROM notes WHERE id = 'n1'", logger: logger).makeAsyncIterator()
        let title = try await rows.next().map { try $0.decode(String.self) }
        #expect(title == (write == "delete" ? nil : "service"), "the service's write came after the other's")
    }

    /// While a write waits for a row another program holds, the store's other writes go on:
    /// the write does not hold the store's version lock as it waits (it did, and one row
    /// held for 10 s held every API write of the store as long).
    @Test func aWriteWaitingForARowDoesNotHoldTheOthers() async throws {
        let (subject, _, _) = try await OutsideWritesTests.subject(.postgres)
        let other = try #require(try await subject.otherProgram())
        let adapter = subject.adapter
        try await Self.patchWaiting(for: "SELECT 1 FROM notes WHERE id = 'n1' FOR UPDATE", other, adapter) {
            connection,
            logger in
            try await Self.writeWhileHeld(adapter, within: .seconds(30), connection, logger)
        }
        #expect(try await adapter.sectionInfo(view: "flat").total == 2)
    }

    /// A write queued behind another reads the table's stamp as that one left it (a
    /// statement reads in the snapshot it started with, before it waited for the version
    /// lock): its step is logged for the other replicas' outlines, as when it did not wait.
    @Test func aQueuedWriteReadsTheStampTheWriteBeforeLeft() async throws {
        let (subject, transactions, _) = try await OutsideWritesTests.subject(.postgres)
        let other = try #require(try await subject.otherProgram())
        let adapter = subject.adapter
        // Another replica's write: it holds the version lock, and raises the counter.
        try await Self.patchWaiting(for: "SELECT version FROM data_mediator_store FOR UPDATE", other, adapter) {
            connection,
            logger in
            try await connection.query(
                "UPDATE data_mediator_stamps SET stamp = stamp + 1 WHERE source = 'notes'",
                logger: logger
            )
            try await connection.query("COMMIT", logger: logger)
        }
        let version = try await adapter.currentVersion()
        let steps = try await transactions.read { session in
            try await session.rows(
                "SELECT stamp_before, stamp_after FROM data_mediator_stamp_steps WHERE version = ?",
                [.integer(version)]
            )
        }
        let step = try #require(steps.first, "the queued write's step is logged")
        #expect(step[1].integerValue == step[0].integerValue.map { $0 + 1 })
    }

    /// A write PostgreSQL ends to break a deadlock runs again rather than answering 503:
    /// here the write holds its row and waits for the version lock, which another program
    /// holds while it wants that row (a cascade of another write meets the same order).
    @Test func aWriteEndedToBreakADeadlockRunsAgain() async throws {
        let (subject, _, _) = try await OutsideWritesTests.subject(.postgres)
        let other = try #require(try await subject.otherProgram())
        try await Self.patchWaiting(for: "SELECT version FROM data_mediator_store FOR UPDATE", other, subject.adapter) {
            connection,
            logger in
            // Waits for the row the patch holds; PostgreSQL ends the patch, which waited
            // longer, after deadlock_timeout (1 s), and this update goes on.
            try await connection.query("UPDATE notes SET title = 'outside' WHERE id = 'n1'", logger: logger)
            try await connection.query("COMMIT", logger: logger)
        }
        let logger = Logger(label: "other-program")
        var rows = try await other.store.primary.query("SELECT title FROM notes WHERE id = 'n1'", logger: logger)
            .makeAsyncIterator()
        let title = try await rows.next().map { try $0.decode(String.self) }
        #expect(title == "waited", "the patch ran again after the other's update")
    }

    /// A write that meets a row lock while it holds the version lock (here a row its
    /// table's trigger updates, held by another program; a foreign key's row is met so
    /// too) lets go of both and runs again: the store's other writes go on meanwhile (they
    /// waited as long as the row was held), and it is stored once, when the row is free.
    @Test func aWriteBlockedUnderTheVersionLockLetsTheOthersGoOn() async throws {
        let (subject, _, _) = try await OutsideWritesTests.subject(.postgres)
        let other = try #require(try await subject.otherProgram())
        let adapter = subject.adapter
        let client = other.store.primary
        let logger = Logger(label: "other-program")
        for statement in [
            "CREATE TABLE tally (id int PRIMARY KEY, n int NOT NULL)", "INSERT INTO tally VALUES (1, 0)",
            """
            CREATE FUNCTION count_note() RETURNS trigger LANGUAGE plpgsql
            AS $$ BEGIN UPDATE tally SET n = n + 1 WHERE id = 1; RETURN NEW; END $$
            """,
            "CREATE TRIGGER notes_tally AFTER UPDATE ON notes FOR EACH ROW EXECUTE FUNCTION count_note()",
        ] {
            try await client.query(PostgresQuery(unsafeSQL: statement), logger: logger)
        }
        try await Self.patchWaiting(for: "SELECT 1 FROM tally WHERE id = 1 FOR UPDATE", other, adapter) {
            connection,
            logger in
            try await Self.writeWhileHeld(adapter, within: .seconds(3), connection, logger)
        }
        var rows = try await client.query(
            "SELECT (SELECT title FROM notes WHERE id = 'n1'), (SELECT n FROM tally WHERE id = 1)",
            logger: logger
        ).makeAsyncIterator()
        let stored = try await rows.next().map { try $0.decode((String, Int32).self) }
        #expect(stored?.0 == "waited" && stored?.1 == 1, "stored once: \(String(describing: stored))")
    }

    /// Two writes whose triggers cross (each item's update updates the other's row) run once
    /// each: a write's first run takes the version lock before its row, so the write queued
    /// behind it holds no row its trigger needs (with the row first, the queued write held
    /// it, and the lock holder met it, held the store 100 ms and ran again).
    @Test func writesWhoseTriggersCrossRunOnceEach() async throws {
        let (subject, _, _) = try await OutsideWritesTests.subject(.postgres)
        let store = try #require(subject.postgresStore)
        let adapter = subject.adapter
        _ = try await adapter.create(body: OutsideWritesTests.note("n2", "second"), scope: nil)
        for statement in [
            """
            CREATE FUNCTION touch_partner() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
                IF pg_trigger_depth() = 1 THEN
                    UPDATE notes SET rev = rev WHERE id = CASE NEW.id WHEN 'n1' THEN 'n2' ELSE 'n1' END;
                END IF;
                RETURN NULL;
            END $$
            """,
            "CREATE TRIGGER notes_partner AFTER UPDATE ON notes FOR EACH ROW EXECUTE FUNCTION touch_partner()",
        ] {
            try await store.primary.query(PostgresQuery(unsafeSQL: statement), logger: Logger(label: "other-program"))
        }
        for round in 0..<20 {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for id in ["n1", "n2"] {
                    group.addTask {
                        let body: JSONValue = .object(["data": .object(["title": .string("\(id) \(round)")])])
                        _ = try await adapter.patch(id: id, body: body, scope: nil)
                    }
                }
                try await group.waitForAll()
            }
        }
        #expect(store.blockedRuns.load(ordering: .relaxed) == 0, "runs that met the other's row and ran again")
    }

    /// A patch or a replace leaves the row's key alone: another transaction's foreign key
    /// check of the row (`FOR KEY SHARE`, as an insert of a row that refers to it takes)
    /// does not keep it waiting (nor would it keep that insert waiting).
    @Test(arguments: ["patch", "replace"])
    func aForeignKeyCheckOfTheRowDoesNotHoldAPatch(write: String) async throws {
        let (subject, _, _) = try await OutsideWritesTests.subject(.postgres)
        let other = try #require(try await subject.otherProgram())
        let adapter = subject.adapter
        let logger = Logger(label: "other-program")
        let data: JSONValue = .object(["title": .string("service")])
        try await other.store.primary.withConnection { connection in
            try await connection.query("BEGIN", logger: logger)
            try await connection.query("SELECT 1 FROM notes WHERE id = 'n1' FOR KEY SHARE", logger: logger)
            try await Self.writeWhileHeld(adapter, within: .seconds(3), connection, logger) {
                if write == "patch" {
                    _ = try await adapter.patch(id: "n1", body: .object(["data": data]), scope: nil)
                } else {
                    _ = try await adapter.replace(id: "n1", body: .object(["data": data]), scope: nil)
                }
            }
        }
    }

    /// Runs `write` while another program's transaction on `connection` holds a lock, and
    /// expects it done `within` (it waits for none of it, or the store's other writes go on
    /// while one waits), then ends that transaction. By default `write` creates `n2`.
    static func writeWhileHeld(
        _ adapter: ListAdapter,
        within wait: Duration,
        _ connection: PostgresConnection,
        _ logger: Logger,
        _ write: (@Sendable () async throws -> Void)? = nil
    ) async throws {
        let written = Flag()
        let another = Task {
            if let write {
                try await write()
            } else {
                _ = try await adapter.create(body: OutsideWritesTests.note("n2", "meanwhile"), scope: nil)
            }
            written.set()
        }
        let deadline = ContinuousClock.now + wait
        while !written.isSet, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(written.isSet, "the write went on while a lock was held")
        try await connection.query("COMMIT", logger: logger)
        try await another.value
    }

    /// Runs `holding` (a lock another program takes) in a transaction of `other`'s, a patch
    /// of `n1` through `adapter` that waits for it, then `body` (which ends the transaction),
    /// and waits for the patch.
    static func patchWaiting(
        for holding: String,
        _ other: PostgresFixture,
        _ adapter: ListAdapter,
        _ body: (PostgresConnection, Logger) async throws -> Void
    ) async throws {
        let logger = Logger(label: "other-program")
        try await other.store.primary.withConnection { connection in
            try await connection.query("BEGIN", logger: logger)
            try await connection.query(PostgresQuery(unsafeSQL: holding), logger: logger)
            let waiting = Task {
                _ = try await adapter.patch(
                    id: "n1",
                    body: .object(["data": .object(["title": .string("waited")])]),
                    scope: nil
                )
            }
            try await waitUntilAWriteWaits(connection, logger: logger)
            try await body(connection, logger)
            try await waiting.value
        }
    }

    /// Waits until a session other than `connection`'s waits for a lock.
    static func waitUntilAWriteWaits(_ connection: PostgresConnection, logger: Logger) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let waiting = try await connection.query(
                """
                SELECT count(*)::int8 FROM pg_stat_activity
                WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'
                """,
                logger: logger
            )
            var rows = waiting.makeAsyncIterator()
            if try await rows.next()?.decode(Int64.self) ?? 0 > 0 { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("no write waited for the row")
    }
}

/// A flag one task sets and another reads.
final class Flag: Sendable {
    private let state = Mutex(false)
    var isSet: Bool { state.withLock { $0 } }
    func set() { state.withLock { $0 = true } }
}
