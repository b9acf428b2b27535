import DataMediator
import DataMediatorSQL
import DataMediatorTesting
import Foundation
import PostgresNIO
import Synchronization
import Testing

@testable import DataMediatorPostgres

/// A store that reads from a read replica waits for the replica to replay a version the
/// primary reached, rather than answering as if the store had gone back. The replica here
/// is another database whose version row stands where a lagging replica's would.
@Suite struct PostgresCatchUpTests {
    @Test func aReadWaitsForTheReplicaToReplayAVersionThePrimaryReached() async throws {
        let primaryURL = try await TestDatabase.create()
        let replicaURL = try await TestDatabase.create()
        let store = try PostgresStore(
            url: primaryURL,
            readURL: replicaURL,
            maximumConnections: 2,
            timeout: .seconds(60),
            keepConnectionsOpen: false,
            logger: PostgresFixture.logger
        )
        try await store.withClientsRunning {
            try await store.prepare()
            _ = try await store.primary.query("UPDATE data_mediator_store SET version = 7")
            // The replica has replayed up to version 5.
            _ = try await store.reader.query("CREATE TABLE data_mediator_store (version bigint NOT NULL)")
            _ = try await store.reader.query("INSERT INTO data_mediator_store VALUES (5)")
            let transactions = store.transactions
            // A version the replica holds is there to read (a read just before may have missed it).
            #expect(try await transactions.catchUp(to: 5) == .caughtUp, "the replica holds it")
            let started = ContinuousClock.now
            #expect(try await transactions.catchUp(to: 9) == .notBehind, "the primary never reached it")
            #expect(ContinuousClock.now - started < .seconds(30), "a version past the primary's was waited for")
            let looked = store.replayedVersion.begun.load(ordering: .relaxed)
            let waiting = Task { try await transactions.catchUp(to: 7) }
            // The replica replays version 7 once the wait has begun a second look of its own,
            // which only its loop begins (on a loaded machine the waiting task may start late).
            while store.replayedVersion.begun.load(ordering: .relaxed) < looked + 2 {
                try await Task.sleep(for: .milliseconds(5))
            }
            _ = try await store.reader.query("UPDATE data_mediator_store SET version = 7")
            let outcome = try await waiting.value
            #expect(outcome == .caughtUp, "the replica replayed it: \(outcome)")
        }
    }

    @Test func aStoreWithoutAReplicaNeverWaits() async throws {
        let fixture = try await PostgresFixture()
        #expect(try await fixture.store.transactions.catchUp(to: 1_000) == .notBehind)
    }
}
