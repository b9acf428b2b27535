import DataMediator
import DataMediatorSQL
import DataMediatorTesting
import Foundation
import PostgresNIO
import Testing

@testable import DataMediatorPostgres

/// A write's commit waits for PostgreSQL's notification queue lock as long as the
/// session's own lock bound allows, not the short wait a write has for rows once it holds
/// the version lock: every notifying commit of the server (of every database) takes that
/// lock in turn and holds it until its commit is flushed, and a busy server ended a
/// write's `COMMIT` with 55P03 (answered 503; CI saw it).
@Suite struct PostgresCommitLockTests {
    @Test(.timeLimit(.minutes(4))) func aWriteCommitsAfterAnotherCommitHeldTheNotificationQueue() async throws {
        // A server of its own: its commits wait for a standby that never comes.
        try await OwnPostgres.withServer { url, _ in
            for setting in ["synchronous_standby_names = 'nobody'", "synchronous_commit = 'local'"] {
                let set = try await TestDatabase.run("/usr/bin/psql", [url, "-qc", "ALTER SYSTEM SET \(setting)"])
                try #require(set.status == 0, "\(set.output)")
            }
            try #require(
                try await TestDatabase.run("/usr/bin/psql", [url, "-qc", "SELECT pg_reload_conf()"]).status == 0
            )
            let logger = Logger(label: "other-program")
            let store = try PostgresStore(
                url: url + "?sslmode=disable",
                maximumConnections: 4,
                timeout: .seconds(60),
                logger: PostgresFixture.logger
            )
            let other = try PostgresStore(
                url: url + "?sslmode=disable",
                maximumConnections: 2,
                timeout: .seconds(60),
                logger: logger
            )
            try await store.withClientsRunning {
                try await other.withClientsRunning {
                    try await store.prepare()
                    let adapter = try await store.adapter(
                        for: WritableSubject.definition("notes"),
                        source: StoreSource(kind: .table("notes"), fieldTypes: WritableSubject.fields),
                        signer: CursorSigner(secret: SampleList.secret)
                    )
                    _ = try await adapter.create(body: OutsideWritesTests.note("n1", "first"), scope: nil)
                    try await other.primary.query("CREATE TABLE elsewhere (n int)", logger: logger)
                    try await other.primary.withConnection { connection in
                        // Another program's commit that notifies holds the queue's lock while
                        // it waits for the standby.
                        var pid = try await connection.query("SELECT pg_backend_pid()", logger: logger)
                            .makeAsyncIterator()
                        let blocker = try #require(try await pid.next()?.decode(Int32.self))
                        try await connection.query("BEGIN", logger: logger)
                        try await connection.query("SET LOCAL synchronous_commit = on", logger: logger)
                        try await connection.query("NOTIFY elsewhere", logger: logger)
                        // A transaction that writes nothing has no commit to wait for.
                        try await connection.query("INSERT INTO elsewhere VALUES (1)", logger: logger)
                        let committing = Task { _ = try await connection.query("COMMIT", logger: logger) }
                        try await Self.waitFor(
                            "SELECT count(*)::int8 FROM pg_stat_activity WHERE pid = \(blocker) AND wait_event = 'SyncRep'",
                            other.primary,
                            logger
                        )
                        let written = Flag()
                        let write = Task {
                            defer { written.set() }
                            let body: JSONValue = .object(["data": .object(["title": .string("after")])])
                            _ = try await adapter.patch(id: "n1", body: body, scope: nil)
                        }
                        // The write's commit waits for that lock (or, as it did, fails at once).
                        var waits = false
                        let deadline = ContinuousClock.now + .seconds(60)
                        while !waits, !written.isSet, ContinuousClock.now < deadline {
                            waits =
                                try await Self.integer(
                                    """
                                    SELECT count(*)::int8 FROM pg_stat_activity
                                    WHERE wait_event_type = 'Lock' AND wait_event = 'object' AND pid <> \(blocker)
                                    """,
                                    other.primary,
                                    logger
                                ) > 0
                            if !waits { try await Task.sleep(for: .milliseconds(20)) }
                        }
                        #expect(waits, "the write's commit waited for the notification queue")
                        // Held well past the wait a write has for rows under the version lock.
                        try await Task.sleep(for: .milliseconds(500))
                        _ = try await Self.integer(
                            "SELECT pg_cancel_backend(\(blocker))::int::int8",
                            other.primary,
                            logger
                        )
                        try await committing.value
                        try await write.value
                    }
                    let title = try await Self.integer(
                        "SELECT (title = 'after')::int::int8 FROM notes WHERE id = 'n1'",
                        other.primary,
                        logger
                    )
                    #expect(title == 1, "the write is stored")
                }
            }
        }
    }

    /// Waits until `sql` reads a whole number over 0 through `client`.
    static func waitFor(_ sql: String, _ client: PostgresClient, _ logger: Logger) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while try await integer(sql, client, logger) == 0 {
            try #require(ContinuousClock.now < deadline, "never: \(sql)")
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// The whole number `sql` reads through `client`.
    static func integer(_ sql: String, _ client: PostgresClient, _ logger: Logger) async throws -> Int64 {
        var rows = try await client.query(PostgresQuery(unsafeSQL: sql), logger: logger).makeAsyncIterator()
        return try await rows.next()?.decode(Int64.self) ?? 0
    }
}
