import DataMediator
import DataMediatorPostgres
import DataMediatorTesting
import PostgresNIO
import Testing

@testable import DataMediatorSQL

/// Other programs that write the tables the service serves on PostgreSQL do not wait for
/// one another, nor for the service's writes, nor the service's writes for them, where
/// they change different rows: each writing transaction counts its changes in a row of its
/// own (``TableStamps``). A counter every writer raised made them take turns, deadlocked
/// two tables written in opposite orders and answered the API's writes 503 while another
/// program's transaction was open.
@Suite struct PostgresOtherWritersTests {
    static func stamp(_ tables: [String], _ transactions: any SQLTransactions) async throws -> Int64 {
        try await transactions.read { try await $0.integer(TableStamps.currentSQL(of: tables)) }
    }

    @Test func writersOfServedTablesDoNotTakeTurns() async throws {
        let (subject, transactions, start) = try await OutsideWritesTests.subject(.postgres)
        let other = try #require(try await subject.otherProgram())
        let client = other.store.primary
        let logger = Logger(label: "other-program")
        // A second table the service counts the changes of.
        try await client.query("CREATE TABLE tags (id text PRIMARY KEY, name text)", logger: logger)
        for statement in TableStamps.prepareStatements(for: "tags", .postgres) {
            try await client.query(PostgresQuery(unsafeSQL: statement), logger: logger)
        }
        let notesBefore = try await Self.stamp(["notes"], transactions)
        let tagsBefore = try await Self.stamp(["tags"], transactions)
        try await client.withConnection { first in
            try await first.query("BEGIN", logger: logger)
            try await first.query("INSERT INTO notes (id, title, rev) VALUES ('a1', 'first', 1)", logger: logger)
            try await first.query("INSERT INTO tags (id, name) VALUES ('t1', 'first')", logger: logger)
            // Another program's transaction writes both tables the other way round while the
            // first is open: it waited for the first's counters (and, run at once, the two
            // deadlocked); it fails after 2 s if it waits.
            try await client.withConnection { second in
                try await second.query("BEGIN", logger: logger)
                try await second.query("SET LOCAL lock_timeout = '2s'", logger: logger)
                try await second.query("INSERT INTO tags (id, name) VALUES ('t2', 'second')", logger: logger)
                try await second.query("INSERT INTO notes (id, title, rev) VALUES ('a2', 'second', 1)", logger: logger)
                try await second.query("COMMIT", logger: logger)
            }
            // A write through the API while the first is still open: it answered 503 after
            // the store's lock bound.
            _ = try await subject.adapter.create(body: OutsideWritesTests.note("n2", "service"), scope: nil)
            try await first.query("COMMIT", logger: logger)
        }
        // Every change counted: two outside transactions and the service's write on notes,
        // two outside transactions on tags.
        #expect(try await Self.stamp(["notes"], transactions) == notesBefore + 3)
        #expect(try await Self.stamp(["tags"], transactions) == tagsBefore + 2)
        // The service's write is logged item by item; the others' come as one reload after it.
        let recorded = try await OutsideWrites.check(transactions).recorded
        #expect(recorded.map(\.table) == ["notes", "tags"])
        let changes = try await subject.adapter.changes(view: "flat", since: String(start), limit: nil)
        #expect(changes.entries.map(\.operation) == [.insert, .reload])
        #expect(try await subject.adapter.sectionInfo(view: "flat").total == 4)
        // The watch moved the counts into the counters: the stamps stay, nothing is left.
        #expect(try await Self.stamp(["notes", "tags"], transactions) == notesBefore + tagsBefore + 5)
        #expect(try await OutsideWrites.check(transactions).recorded.isEmpty)
    }

    /// A program whose search path does not hold the service's tables writes a served
    /// table (the triggers' function keeps its own search path: the write failed with
    /// "relation does not exist"), and a table renamed away from the name it is served by
    /// no longer counts as the served table.
    @Test func anotherSearchPathAndATableRenamedAway() async throws {
        let (subject, transactions, _) = try await OutsideWritesTests.subject(.postgres)
        let other = try #require(try await subject.otherProgram())
        let logger = Logger(label: "other-program")
        try await other.store.primary.withConnection { connection in
            try await connection.query("CREATE SCHEMA elsewhere", logger: logger)
            try await connection.query("SET search_path = elsewhere", logger: logger)
            try await connection.query(
                "INSERT INTO public.notes (id, title, rev) VALUES ('s1', 'elsewhere', 1)",
                logger: logger
            )
        }
        #expect(try await OutsideWrites.check(transactions).recorded.map(\.table) == ["notes"])
        try await subject.writeBehindTheServicesBack("ALTER TABLE notes RENAME TO notes_old")
        let before = try await Self.stamp(["notes"], transactions)
        try await subject.writeBehindTheServicesBack("INSERT INTO notes_old (id, title, rev) VALUES ('o1', 'old', 1)")
        #expect(
            try await Self.stamp(["notes"], transactions) == before,
            "the old table's write is not the served one's"
        )
    }

    /// A partitioned table's changes count in both roles: its statement triggers fire on the
    /// table, its row trigger (logical replication's) on the partition a row lands in.
    @Test func aPartitionedTablesChangesCount() async throws {
        let (subject, transactions, _) = try await OutsideWritesTests.subject(.postgres)
        let other = try #require(try await subject.otherProgram())
        let logger = Logger(label: "other-program")
        let client = other.store.primary
        try await client.query("CREATE TABLE parted (id text, part int) PARTITION BY LIST (part)", logger: logger)
        try await client.query("CREATE TABLE parted_1 PARTITION OF parted FOR VALUES IN (1)", logger: logger)
        for statement in TableStamps.prepareStatements(for: "parted", .postgres) {
            try await client.query(PostgresQuery(unsafeSQL: statement), logger: logger)
        }
        let before = try await Self.stamp(["parted"], transactions)
        try await client.query("INSERT INTO parted VALUES ('a', 1)", logger: logger)
        #expect(try await Self.stamp(["parted"], transactions) == before + 1)
        try await client.withConnection { connection in
            try await connection.query("SET session_replication_role = replica", logger: logger)
            try await connection.query("INSERT INTO parted VALUES ('b', 1), ('c', 1)", logger: logger)
        }
        #expect(try await Self.stamp(["parted"], transactions) == before + 2, "once for the replicated transaction")
    }
}
