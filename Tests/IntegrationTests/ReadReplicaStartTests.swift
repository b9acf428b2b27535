import DataMediatorTesting
import Foundation
import Testing

/// A service replica started on a lagging standby after a client's write heard no
/// notification of it, so it could not hold that client's reads for it: it is not ready
/// (a load balancer sends it nothing) until the standby holds what the primary held when
/// it was first looked at. And `/metrics` shows only what was read.
extension ReadReplicaTests {
    @Test(.timeLimit(.minutes(5))) func aServiceReplicaStartedAfterAWriteIsReadyOnceItsStandbyHoldsIt() async throws {
        try await withLaggingStandby { primary, standby, standbyDirectory in
            var environment = Self.environment(primary, readingFrom: standby)
            let a = try await ServerProcess(arguments: ["--demo-transactions", "20"], environment: environment)
            defer { a.removeData() }
            try await Self.waitUntilReady(a)
            // The standby stops replaying: the write below is on the primary only.
            try await Self.psql(standby, "SELECT pg_wal_replay_pause()")
            let id = try await ReplicaTests.create(
                on: a,
                ReplicaTests.transaction("cy", points: 3, at: "2026-11-20T12:00:00Z")
            )
            var waitsLittle = environment
            waitsLittle["DATA_MEDIATOR_DATABASE_TIMEOUT_SECONDS"] = "1"
            let e = try await ServerProcess(arguments: ["--demo-transactions", "20"], environment: waitsLittle)
            defer { e.removeData() }
            let notReady = try await e.get("/ready")
            let detail = String(decoding: notReady.body, as: UTF8.self)
            #expect(notReady.status == 503, "\(detail)")
            #expect(notReady.headers["retry-after"] == "1")
            #expect(detail.contains("not yet replayed what its primary held when this service started"), "\(detail)")
            // A client that reaches it all the same: E cannot know whose writes it missed, so
            // every client's read waits for the standby to hold them, then answers 503.
            let missing = try await e.get("/lists/transactions/items/\(id)")
            let missed = String(decoding: missing.body, as: UTF8.self)
            #expect(missing.status == 503, "\(missed)")
            #expect(missed.contains("the writes made before this server listened for them"), "\(missed)")

            try await Self.psql(standby, "SELECT pg_wal_replay_resume()")
            try await Self.waitUntilReady(e)
            let read = try await e.get("/lists/transactions/items/\(id)")
            #expect(read.status == 200, "ready, and without the write: \(String(decoding: read.body, as: UTF8.self))")
            #expect(await a.stop() == 0)
            #expect(await e.stop() == 0)

            // A replica never read is left out of /metrics, not shown at version 0; a process
            // without a read replica shows no lag.
            let f = try await ServerProcess(arguments: ["--demo-transactions", "20"], environment: environment)
            environment["DATA_MEDIATOR_DATABASE_READ_URL"] = nil
            let g = try await ServerProcess(arguments: ["--demo-transactions", "20"], environment: environment)
            defer {
                f.removeData()
                g.removeData()
            }
            try #require(try await OwnPostgres.control("pause", standbyDirectory) == 0)
            let unread = try await Self.metrics(of: f)
            #expect(!unread.contains("data_mediator_store_version"), "\(unread)")
            #expect(!unread.contains("data_mediator_replica_lag"), "\(unread)")
            let primaryOnly = try await Self.metrics(of: g)
            #expect(primaryOnly.contains("\ndata_mediator_store_version "), "\(primaryOnly)")
            #expect(!primaryOnly.contains("data_mediator_replica_lag"), "\(primaryOnly)")
            try #require(try await OwnPostgres.control("resume", standbyDirectory) == 0)
            try await Self.waitUntilReady(f)
            // Scraped as a scraper does, again after a while: a connection the outage closed
            // may fail one look, and scrapes share a look for a second after it (the lag's
            // may be one from before the standby came back: full run 84c).
            var scraped = try await Self.metrics(of: f)
            var scrapes = 1
            while !scraped.contains("\ndata_mediator_store_version ")
                || !scraped.contains("data_mediator_replica_lag_versions"), scrapes < 20
            {
                try await Task.sleep(for: .milliseconds(500))
                scraped = try await Self.metrics(of: f)
                scrapes += 1
            }
            #expect(
                scraped.contains("\ndata_mediator_store_version ")
                    && scraped.contains("data_mediator_replica_lag_versions")
            )
            #expect(scrapes < 20, "never scraped after \(scrapes) scrapes: \(f.log.suffix(2_000))")
            #expect(await f.stop() == 0)
            #expect(await g.stop() == 0)
        }
    }

    /// Waits until `server`'s `/ready` answers 200 (the standby has replayed the demo).
    static func waitUntilReady(_ server: ServerProcess) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while try await server.get("/ready").status != 200 {
            try #require(ContinuousClock.now < deadline, "never ready: \(server.log.suffix(2_000))")
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// `server`'s `/metrics` text.
    static func metrics(of server: ServerProcess) async throws -> String {
        let answer = try await server.get("/metrics")
        #expect(answer.status == 200)
        return "\n" + String(decoding: answer.body, as: UTF8.self)
    }

    /// Runs `statement` on the database at `url` with psql.
    static func psql(_ url: String, _ statement: String) async throws {
        let ran = try await TestDatabase.run("/usr/bin/psql", [url, "-qc", statement])
        try #require(ran.status == 0, "\(ran.output)")
    }
}
