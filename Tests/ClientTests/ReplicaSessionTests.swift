import DataMediatorClient
import DataMediatorTesting
import Foundation
import Testing

/// The client kit against two replicas of the service on one PostgreSQL database, as an
/// app behind a load balancer meets them: a session that reads and follows one replica
/// while the writes go to the other ends equal to a fresh walk of either, every change
/// applied once and no reload.
@Suite struct ReplicaSessionTests {
    @Test func aSessionOnOneReplicaFollowsTheOthersWritesToAFreshWalk() async throws {
        let url = try await TestDatabase.create()
        let environment = [
            "DATA_MEDIATOR_DATABASE_URL": url,
            "DATA_MEDIATOR_WRITE_TOKENS": Live.token,
            "DATA_MEDIATOR_CURSOR_SECRET": "replicas-share-this-secret-of-enough-length",
            "DATA_MEDIATOR_HEARTBEAT_SECONDS": "1",
        ]
        let reader = try await ServerProcess(arguments: ["--demo-transactions", "600"], environment: environment)
        let writer = try await ServerProcess(arguments: ["--demo-transactions", "600"], environment: environment)
        defer {
            reader.removeData()
            writer.removeData()
        }
        let before = try await Live.walk(writer)
        #expect(before.itemCount == 600)
        let session = ListSession(baseURL: try #require(URL(string: reader.base)), configuration: Live.configuration())
        let ids = before.items.map(\.id)
        try await session.open(around: ids[300])
        let writes = 150
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await session.follow() }
            group.addTask {
                try await Live.randomWrites(writes, on: writer, ids: ids, days: try Live.days(of: before), seed: 31)
            }
            // Pages both ways on the reader while the writer takes the writes.
            for _ in 0..<3 {
                try await Task.sleep(for: .milliseconds(100))
                try await session.loadEarlier()
                try await session.loadMore()
            }
            try await group.next()
            try await Live.wait(for: session, toReach: try await Live.version(of: writer))
            while try await session.loadEarlier() {}
            while try await session.loadMore() {}
            group.cancelAll()
        }
        try await session.catchUp()
        let held = await session.snapshot
        for replica in [reader, writer] {
            let fresh = try await Live.walk(replica)
            #expect(held.sections == fresh.sections, "\(replica.base)")
            #expect(held.version == fresh.version)
        }
        #expect(!held.hasMoreBefore && !held.hasMoreAfter)
        let statistics = await session.statistics
        #expect(statistics.reloads == 0 && statistics.changesApplied > 0, "\(statistics)")
        _ = try await Live.checkUpdates(of: session)
        #expect(await reader.stop() == 0)
        #expect(await writer.stop() == 0)
    }
}
