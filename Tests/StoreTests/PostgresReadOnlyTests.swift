import DataMediator
import DataMediatorTesting
import Foundation
import Testing

@testable import DataMediatorPostgres

/// A primary that refuses writes for being read-only (a DBA's `default_transaction_read_only`
/// on its database, or a standby after a failover) answers writes `unavailable`, naming it,
/// with nothing stored; readiness names it too; and once the database takes writes again,
/// the service does, without a restart (its sessions kept the setting they began with).
@Suite struct PostgresReadOnlyTests {
    /// Runs `sql` on the database at `url` with psql, in a session that may write whatever
    /// the database's default.
    static func psql(_ url: String, _ sql: String) async throws {
        let ran = try await TestDatabase.run(
            "/bin/sh",
            ["-c", "/usr/bin/psql \"$0\" -qc 'SET default_transaction_read_only = off' -qc \"$1\" 2>&1", url, sql]
        )
        try #require(ran.status == 0, "\(sql): \(ran.output)")
    }

    /// Sets (`on`) or resets the database's `default_transaction_read_only`.
    static func readOnly(_ on: Bool, _ url: String) async throws {
        let setting = on ? "SET default_transaction_read_only = on" : "RESET default_transaction_read_only"
        try await psql(url, "DO $$ BEGIN EXECUTE format('ALTER DATABASE %I \(setting)', current_database()); END $$")
    }

    @Test(.timeLimit(.minutes(3))) func aReadOnlyPrimaryRefusesWritesUntilItTakesThemAgain() async throws {
        let subject = try await WritableSubject(.postgres)
        let fixture = try #require(subject.postgresFixture)
        let store = fixture.store
        _ = try await subject.adapter.create(body: OutsideWritesTests.note("n1", "before"), scope: nil)
        let version = try await subject.adapter.currentVersion()
        try await Self.readOnly(true, fixture.url)
        // The sessions the pool holds began writable: ended, the pool opens read-only ones.
        try await Self.psql(
            fixture.url,
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() "
                + "AND pid <> pg_backend_pid()"
        )
        let deadline = ContinuousClock.now + .seconds(60)
        var refusal: DataMediatorError?
        while refusal == nil, ContinuousClock.now < deadline {
            do {
                _ = try await subject.adapter.create(body: OutsideWritesTests.note("n2", "frozen"), scope: nil)
                Issue.record("a write was stored in a read-only database")
                return
            } catch let error as DataMediatorError where error.message.contains("read-only") {
                refusal = error
            } catch let error as DataMediatorError where error.code == .unavailable {
                // The pool reconnecting after the sessions ended.
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        let refused = try #require(refusal, "no write met the read-only database")
        #expect(refused.code == .unavailable)
        #expect(refused.message.contains("The database refuses writes: it is read-only"), "\(refused.message)")
        // Looked at again until it answers: a look not answered within its 2 s (a machine
        // busy with the whole suite) says nothing of it.
        var problem = await store.readinessProblem()
        while problem?.contains("refuses writes") != true, ContinuousClock.now < deadline + .seconds(60) {
            try await Task.sleep(for: .milliseconds(50))
            problem = await store.readinessProblem()
        }
        #expect(problem?.contains("refuses writes") == true, "\(String(describing: problem))")
        #expect(try await subject.adapter.currentVersion() == version, "nothing was stored")

        // The database takes writes again; the pool's sessions are the read-only ones still.
        try await Self.readOnly(false, fixture.url)
        while let problem = await store.readinessProblem(), problem.contains("refuses writes") {
            try #require(ContinuousClock.now < deadline + .seconds(60), "readiness kept saying: \(problem)")
            try await Task.sleep(for: .milliseconds(20))
        }
        var stored = false
        while !stored {
            do {
                _ = try await subject.adapter.create(body: OutsideWritesTests.note("n2", "thawed"), scope: nil)
                stored = true
            } catch let error as DataMediatorError where error.code == .unavailable {
                try #require(ContinuousClock.now < deadline + .seconds(60), "writes kept failing: \(error.message)")
            }
        }
        let thawed = try await subject.adapter.locate(id: "n2", view: nil).item.data
        #expect(thawed.objectValue?["title"] == .string("thawed"))
        #expect(await store.readinessProblem() == nil)
    }
}
