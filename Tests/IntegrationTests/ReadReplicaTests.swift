import DataMediatorTesting
import Foundation
import Testing

/// Two replicas of the service on a PostgreSQL primary and a real streaming standby that
/// applies each commit 2 s after the primary (`scripts/test-postgres standby`), as a
/// deployment with a read replica meets them behind a load balancer: a client reads its
/// own write at once through either replica.
@Suite struct ReadReplicaTests {
    /// How long the standby holds back each commit.
    static let delay = 2_000

    /// Runs `body` with the URLs of a new primary and its lagging standby (and the
    /// standby's directory, for `scripts/test-postgres pause`), stopping both.
    func withLaggingStandby(
        _ body: (_ primary: String, _ standby: String, _ standbyDirectory: String) async throws -> Void
    ) async throws {
        try await OwnPostgres.withStandby(delay: Self.delay, body)
    }

    /// A service replica's environment on `primary`, reading from `standby`, that waits
    /// long enough for the standby's delay on a loaded machine.
    static func environment(_ primary: String, readingFrom standby: String) -> [String: String] {
        var environment = ReplicaTests.environment(primary)
        environment["DATA_MEDIATOR_DATABASE_READ_URL"] = standby
        environment["DATA_MEDIATOR_DATABASE_TIMEOUT_SECONDS"] = "20"
        return environment
    }

    @Test(.timeLimit(.minutes(5))) func aClientReadsItsOwnWriteThroughEitherReplica() async throws {
        try await withLaggingStandby { primary, standby, _ in
            var environment = Self.environment(primary, readingFrom: standby)
            let a = try await ServerProcess(arguments: ["--demo-transactions", "20"], environment: environment)
            let b = try await ServerProcess(arguments: ["--demo-transactions", "20"], environment: environment)
            defer {
                a.removeData()
                b.removeData()
            }
            // The standby holds the demo once it has applied its tables' commits; until then
            // a read is 503 with Retry-After (the tables not replayed yet), and then 200 at
            // once (not for as long as each connection kept its refusal to prepare).
            let deadline = ContinuousClock.now + .seconds(60)
            while true {
                let read = try await b.get("/lists/transactions/items?limit=1")
                if read.status == 200 { break }
                #expect(read.status == 503, "\(String(decoding: read.body, as: UTF8.self))")
                #expect(read.headers["retry-after"] != nil)
                try #require(ContinuousClock.now < deadline, "the standby never held the demo")
                try await Task.sleep(for: .milliseconds(100))
            }
            for _ in 0..<20 {
                #expect(try await b.get("/lists/transactions/items?limit=1").status == 200, "every connection reads it")
            }
            let reader = ["Authorization": "Bearer t"]
            for (writer, other) in [(a, a), (a, b), (b, a)] {
                let id = try await ReplicaTests.create(
                    on: writer,
                    ReplicaTests.transaction("ana", points: 1, at: "2026-11-20T10:00:00Z")
                )
                let read = try await other.get("/lists/transactions/items/\(id)", headers: reader)
                #expect(read.status == 200, "written through \(writer.base), read through \(other.base)")
            }
            #expect(await a.stop() == 0)
            #expect(await b.stop() == 0)

            // A replica that waits less than the standby lags: a client's read of its own
            // write is 503 with Retry-After, not an answer without it, until the standby has
            // replayed the write; also for a write through a replica that reads the primary.
            environment["DATA_MEDIATOR_DATABASE_TIMEOUT_SECONDS"] = "1"
            let c = try await ServerProcess(arguments: ["--demo-transactions", "20"], environment: environment)
            environment["DATA_MEDIATOR_DATABASE_READ_URL"] = nil
            let d = try await ServerProcess(arguments: ["--demo-transactions", "20"], environment: environment)
            defer {
                c.removeData()
                d.removeData()
            }
            for writer in [c, d] {
                let id = try await ReplicaTests.create(
                    on: writer,
                    ReplicaTests.transaction("bo", points: 2, at: "2026-11-20T11:00:00Z")
                )
                var read = try await c.get("/lists/transactions/items/\(id)", headers: reader)
                #expect(read.status == 503, "through \(writer.base): \(String(decoding: read.body, as: UTF8.self))")
                #expect(read.headers["content-type"] == "application/problem+json")
                let replayedBy = ContinuousClock.now + .seconds(30)
                while read.status == 503, ContinuousClock.now < replayedBy {
                    let wait = try #require(Double(read.headers["retry-after"] ?? ""), "a 503 without Retry-After")
                    try await Task.sleep(for: .seconds(wait))
                    read = try await c.get("/lists/transactions/items/\(id)", headers: reader)
                }
                #expect(read.status == 200, "through \(writer.base): \(String(decoding: read.body, as: UTF8.self))")
            }
            #expect(await c.stop() == 0)
            #expect(await d.stop() == 0)
        }
    }
}
