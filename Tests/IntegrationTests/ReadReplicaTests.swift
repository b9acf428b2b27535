import DataMediator
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

    /// Waits until `server`, reading the standby, serves the demo. The standby holds it
    /// once it has applied its tables' commits; until then a read is 503 with Retry-After
    /// (the tables not replayed yet), and then 200 at once (not for as long as each
    /// connection kept its refusal to prepare).
    static func waitUntilTheStandbyHoldsTheDemo(_ server: ServerProcess) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            let read = try await server.get("/lists/transactions/items?limit=1")
            if read.status == 200 { return }
            #expect(read.status == 503, "\(String(decoding: read.body, as: UTF8.self))")
            #expect(read.headers["retry-after"] != nil)
            try #require(ContinuousClock.now < deadline, "the standby never held the demo")
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// A walk that reads its pages by turns through a replica on the primary and one on
    /// the lagging standby, each page followed by a write through the other, never goes
    /// back in time (a page from a cursor waits for the standby to reach the cursor's
    /// version), and a stream on the standby's replica sends every write of both, in order,
    /// each once the standby holds it.
    @Test(.timeLimit(.minutes(5))) func aWalkAcrossBothReplicasAndAStreamOnTheStandbyMissNothing() async throws {
        try await withLaggingStandby { primary, standby, _ in
            var onPrimary = ReplicaTests.environment(primary)
            onPrimary["DATA_MEDIATOR_DATABASE_TIMEOUT_SECONDS"] = "20"
            let a = try await ServerProcess(arguments: ["--demo-transactions", "40"], environment: onPrimary)
            let b = try await ServerProcess(
                arguments: ["--demo-transactions", "40"],
                environment: Self.environment(primary, readingFrom: standby)
            )
            defer {
                a.removeData()
                b.removeData()
            }
            try await Self.waitUntilTheStandbyHoldsTheDemo(b)
            let start = try #require(try await a.json("/lists/transactions/items?limit=1")["version"] as? String)
            let stream = try EventCapture(b.base, "/lists/transactions/events", since: start)
            defer { stream.stop() }
            var walk = WalkCheck()
            var versions: [Int64] = []
            var cursor: String?
            repeat {
                let (reader, writer) = walk.pageCount % 2 == 0 ? (a, b) : (b, a)
                // No credentials: only the cursor's version keeps the standby's pages in step.
                let query = "limit=7" + (cursor.map { "&cursor=\($0)" } ?? "")
                let answer = try await ReplicaTests.request(
                    on: reader,
                    "GET",
                    "/lists/transactions/items?\(query)",
                    headers: [:]
                )
                try #require(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
                let page = try Page.decode(answer.body)
                walk.add(page)
                versions.append(page.version)
                cursor = page.next
                if walk.pageCount % 2 == 0, let id = walk.items.last?.id {
                    try await ReplicaTests.setPoints(of: id, to: 77, on: writer)
                } else {
                    _ = try await ReplicaTests.create(
                        on: writer,
                        ReplicaTests.transaction("ana", points: walk.pageCount, at: "2030-01-01T00:00:00Z")
                    )
                }
            } while cursor != nil
            #expect(walk.violations == [])
            #expect(versions == versions.sorted(), "the pages' versions: \(versions)")
            #expect(walk.items.count == 40, "the inserts came before the walk's position")
            let end = try #require(
                Int64(try await a.json("/lists/transactions/items?limit=1")["version"] as? String ?? "")
            )
            let since = try #require(Int64(start))
            #expect(end - since >= 6)
            #expect(try await stream.ids(until: end, timeout: .seconds(60)) == Array((since + 1)...end))
            #expect(await a.stop() == 0)
            #expect(await b.stop() == 0)
        }
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
            try await Self.waitUntilTheStandbyHoldsTheDemo(b)
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
