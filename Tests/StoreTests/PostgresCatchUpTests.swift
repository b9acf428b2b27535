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
    /// A store over the database at `url` that reads from the one at `readURL`, with a
    /// small pool that opens its connections as needed.
    static func store(_ url: String, readingFrom readURL: String) throws -> PostgresStore {
        try PostgresStore(
            url: url,
            readURL: readURL,
            maximumConnections: 2,
            timeout: .seconds(60),
            keepConnectionsOpen: false,
            logger: PostgresFixture.logger
        )
    }

    /// Runs `body` with a store whose read replica (another database; the URLs of both are
    /// given) has replayed up to version 5, the primary at `primary`.
    func withLaggingStore(
        primary: Int64,
        _ body: @escaping @Sendable (PostgresStore, (primary: String, replica: String)) async throws -> Void
    ) async throws {
        let primaryURL = try await TestDatabase.create()
        let replicaURL = try await TestDatabase.create()
        let store = try Self.store(primaryURL, readingFrom: replicaURL)
        try await store.withClientsRunning {
            try await store.prepare()
            _ = try await store.primary.query("UPDATE data_mediator_store SET version = \(primary)")
            _ = try await store.reader.query("CREATE TABLE data_mediator_store (version bigint NOT NULL)")
            _ = try await store.reader.query("INSERT INTO data_mediator_store VALUES (5)")
            try await body(store, (primaryURL, replicaURL))
        }
    }

    @Test func aReadWaitsForTheReplicaToReplayAVersionThePrimaryReached() async throws {
        try await withLaggingStore(primary: 7) { store, _ in
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

    /// A request that spent the store's timeout before (waiting for the replica to hold a
    /// client's write, say) has no time left for its reads: its wait for the replica and
    /// its reads end at once, `stillBehind` and `unavailable`, rather than each taking a
    /// whole timeout more (a probe's read on a replica that stopped took 6.5 s of a 5 s
    /// timeout). A replica's version read for others too is bounded by the store's timeout.
    @Test func aRequestThatSpentTheTimeoutHasNoTimeLeftForItsReads() async throws {
        try await withLaggingStore(primary: 7) { store, _ in
            let transactions = store.transactions
            // The store's timeout is 60 s.
            let spent: ContinuousClock.Instant = .now - .seconds(61)
            try await ReadTime.$began.withValue(spent) { () async throws -> Void in
                let started = ContinuousClock.now
                #expect(try await transactions.catchUp(to: 7) == .stillBehind)
                #expect(ContinuousClock.now - started < .seconds(30), "the wait took the store's whole timeout")
                for read in [
                    { _ = try await transactions.read { try await $0.integer("SELECT 1") } },
                    { _ = try await store.readStatement { try await Self.one($0) } },
                ] as [@Sendable () async throws -> Void] {
                    let error = await #expect(throws: DataMediatorError.self) { try await read() }
                    #expect(error?.code == .unavailable && error?.message.contains("did not answer in time") == true)
                }
            }
            // With its time left, a request reads.
            try await ReadTime.$began.withValue(.now) { () async throws -> Void in
                #expect(try await transactions.read { try await $0.integer("SELECT 1") } == 1)
                #expect(try await store.readStatement { try await Self.one($0) } == 1)
            }
        }
    }

    /// `SELECT 1` on `connection`.
    static func one(_ connection: PostgresConnection) async throws -> Int {
        var rows = try await connection.query("SELECT 1", logger: PostgresFixture.logger).makeAsyncIterator()
        return try await rows.next()?.decode(Int.self) ?? 0
    }

    /// A version this process saw the primary reach (a write's notification) is waited for
    /// without asking the primary, so a client's write is read back through a replica while
    /// the primary does not answer (a probe saw such reads wait out its whole outage).
    @Test func aVersionSeenOnThePrimaryIsWaitedForWithoutAskingIt() async throws {
        // The primary's row stands at 7: asked, it would say 9 was never reached.
        try await withLaggingStore(primary: 7) { store, _ in
            store.primaryReached(9)
            let looked = store.replayedVersion.begun.load(ordering: .relaxed)
            let ended = Atomic<Bool>(false)
            let waiting = Task {
                defer { ended.store(true, ordering: .releasing) }
                return try await store.transactions.catchUp(to: 9)
            }
            while store.replayedVersion.begun.load(ordering: .relaxed) < looked + 2,
                !ended.load(ordering: .acquiring)
            {
                try await Task.sleep(for: .milliseconds(5))
            }
            _ = try await store.reader.query("UPDATE data_mediator_store SET version = 9")
            let outcome = try await waiting.value
            #expect(outcome == .caughtUp, "a version the primary was seen at: \(outcome)")
            // A look at the primary that finds it lower (a store made anew) is believed.
            #expect(try await store.primaryVersion() == 7)
            #expect(try await store.transactions.catchUp(to: 11) == .notBehind)
        }
    }

    @Test func aStoreWithoutAReplicaNeverWaits() async throws {
        let fixture = try await PostgresFixture()
        #expect(try await fixture.store.transactions.catchUp(to: 1_000) == .notBehind)
        #expect(try await fixture.store.replicaLag() == nil, "no replica, no lag")
    }

    /// The lag counts the versions the replica has not replayed, and the time since the
    /// primary was first seen at the oldest of them.
    @Test func theLagCountsVersionsAndTheTimeSinceThePrimaryWasSeenAtThem() async throws {
        try await withLaggingStore(primary: 5) { store, urls in
            let replicaURL = urls.replica
            #expect(try await store.replicaLag() == ReplicaLag(versions: 0, seconds: 0))
            // The primary's notification of version 6, then a look that finds it at 7.
            store.primaryReached(6)
            let seen = ContinuousClock.now
            _ = try await store.primary.query("UPDATE data_mediator_store SET version = 7")
            // A second, so that the lag measured below from 7 (seen at this look) is well
            // under it however slowly a loaded machine runs the steps between (at 300 ms it
            // was not once, in a full run).
            try await Task.sleep(for: .seconds(1))
            let lag = try #require(try await store.replicaLag())
            #expect(lag.versions == 2)
            #expect(lag.seconds >= 1, "timed from the notification of 6: \(lag)")
            #expect(Duration.seconds(lag.seconds) <= ContinuousClock.now - seen + .milliseconds(50))
            // The replica replays 6: the time runs from when 7 was first seen.
            _ = try await store.reader.query("UPDATE data_mediator_store SET version = 6")
            // A look shares the replica's version read by its callers for a moment.
            try await Task.sleep(for: PostgresStore.catchUpPoll * 3)
            let later = try #require(try await store.replicaLag())
            #expect(later.versions == 1 && later.seconds < lag.seconds, "\(later) after \(lag)")
            _ = try await store.reader.query("UPDATE data_mediator_store SET version = 7")
            try await Task.sleep(for: PostgresStore.catchUpPoll * 3)
            #expect(try await store.replicaLag() == ReplicaLag(versions: 0, seconds: 0))
            let ready = await store.readinessProblem()
            #expect(ready == nil, "\(String(describing: ready))")
            // The replica goes away: it stands where it was last seen, and its lag grows
            // with the primary's writes and the time since; readiness names it.
            let server = try #require(ProcessInfo.processInfo.environment["DATA_MEDIATOR_TEST_DATABASE_URL"])
            let name = try #require(URLComponents(string: replicaURL)?.path.dropFirst())
            let dropped = try await TestDatabase.run(
                "/usr/bin/psql",
                [server, "-qc", "DROP DATABASE \(name) WITH (FORCE)"]
            )
            try #require(dropped.status == 0, "\(dropped.output)")
            _ = try await store.primary.query("UPDATE data_mediator_store SET version = 8")
            store.primaryReached(8)
            try await Task.sleep(for: .milliseconds(300))
            let gone = try #require(try await store.replicaLag())
            #expect(gone.versions == 1 && gone.seconds >= 0.3, "\(gone)")
            let problem = await store.readinessProblem()
            #expect(problem?.contains("read replica") == true, "\(String(describing: problem))")
        }
    }

    /// A primary that goes away (an outage the read replica serves through) stands at the
    /// newest version it was seen at: the lag is what the replica has not replayed of it,
    /// not a failure (which held `/ready` at `503` on every service replica with a lag
    /// bound, where reads were answered; review 95 #3).
    @Test func aPrimaryThatGoesAwayStandsWhereItWasLastSeen() async throws {
        try await withLaggingStore(primary: 7) { store, urls in
            let primaryURL = urls.primary
            let before = try #require(try await store.replicaLag())
            #expect(before.versions == 2, "\(before)")
            let server = try #require(ProcessInfo.processInfo.environment["DATA_MEDIATOR_TEST_DATABASE_URL"])
            let primary = try #require(URLComponents(string: primaryURL)?.path.dropFirst())
            let dropped = try await TestDatabase.run(
                "/usr/bin/psql",
                [server, "-qc", "DROP DATABASE \(primary) WITH (FORCE)"]
            )
            try #require(dropped.status == 0, "\(dropped.output)")
            let during = try await store.replicaLag()
            #expect(during?.versions == 2, "\(String(describing: during))")
            _ = try await store.reader.query("UPDATE data_mediator_store SET version = 7")
            try await Task.sleep(for: PostgresStore.catchUpPoll * 3)
            #expect(try await store.replicaLag() == ReplicaLag(versions: 0, seconds: 0))
        }
    }

    /// A wait's look at the replica counts as a sighting of it: a replica that went away
    /// after it stands where that look saw it, not where an earlier scrape did.
    @Test func aWaitsLookAtTheReplicaIsWhereItWasLastSeen() async throws {
        try await withLaggingStore(primary: 7) { store, _ in
            #expect(store.primarySightings.lastReplayed == nil)
            _ = try await store.replicaVersion()
            #expect(store.primarySightings.lastReplayed == 5)
            store.primarySightings.replicaHolds(4)
            #expect(store.primarySightings.lastReplayed == 5, "an older look does not move it back")
        }
    }

    /// Not ready until the replica holds the version the primary stood at when readiness
    /// was first looked at: writes from before then were never heard, so reads could not
    /// wait for them. The primary's later versions are not waited for (that is the lag's
    /// bound), and once the replica held it, it is not looked at again.
    @Test func readinessWaitsForThePrimarysVersionAtTheFirstLook() async throws {
        try await withLaggingStore(primary: 7) { store, _ in
            let behind = await store.readinessProblem()
            #expect(behind?.contains("(version 7 at WAL position") == true, "\(String(describing: behind))")
            _ = try await store.primary.query("UPDATE data_mediator_store SET version = 9")
            _ = try await store.reader.query("UPDATE data_mediator_store SET version = 6")
            #expect(await store.readinessProblem()?.contains("version 7 at") == true)
            _ = try await store.reader.query("UPDATE data_mediator_store SET version = 7")
            let caughtUp = await store.readinessProblem()
            #expect(caughtUp == nil, "the primary's later writes are the lag's: \(String(describing: caughtUp))")
            _ = try await store.reader.query("UPDATE data_mediator_store SET version = 6")
            let heldOnce = await store.readinessProblem()
            #expect(heldOnce == nil, "held once, not looked at again: \(String(describing: heldOnce))")
        }
    }

    /// A read replica that is no standby (a logical one, or a standby since promoted) is
    /// ready at once, on a server that recovered from a crash too: such a server keeps
    /// answering the last WAL position its recovery replayed, which the primary's passed.
    @Test(.timeLimit(.minutes(4))) func aReplicaOutOfRecoveryIsReadyOnAServerThatRecoveredFromACrash() async throws {
        try await OwnPostgres.withServer { url, directory in
            try #require(try await OwnPostgres.control("crash", directory) == 0)
            try #require(try await OwnPostgres.control("resume", directory) == 0)
            let recovered = try await TestDatabase.run(
                "/usr/bin/psql",
                [url, "-Atc", "SELECT pg_last_wal_replay_lsn() IS NOT NULL AND NOT pg_is_in_recovery()"]
            )
            try #require(recovered.output.hasPrefix("t"), "a recovered server out of recovery: \(recovered.output)")
            let store = try Self.store(url + "?sslmode=disable", readingFrom: url + "?sslmode=disable")
            try await store.withClientsRunning {
                try await store.prepare()
                let problem = await store.readinessProblem()
                #expect(problem == nil, "\(String(describing: problem))")
            }
        }
    }

    /// A listener that begins to listen on a store with a read replica publishes the
    /// primary's version for every client (``WriteOrigin/everyone``): the writes up to it
    /// were not heard, and reads that wait to hear the primary's version find it heard.
    @Test func aListenerPublishesThePrimarysVersionForEveryoneWhenItBeginsToListen() async throws {
        try await withLaggingStore(primary: 7) { store, _ in
            let notifier = ChangeNotifier()
            let heard = PostgresWriterNotificationTests.Heard(notifier)
            let listener = PostgresChangeListener(store: store, notifier: notifier, logger: PostgresFixture.logger)
            let listening = Task { try await listener.run() }
            defer { listening.cancel() }
            try await PostgresWriterNotificationTests.waitFor(7, on: notifier)
            #expect(heard.all.map(\.writer) == [WriteOrigin.everyone])
            #expect(heard.all.map(\.version) == [7])
            // The server's memory of writes is built after the listener began: it hears it too.
            let late = PostgresWriterNotificationTests.Heard(notifier)
            #expect(late.all.map(\.writer) == [WriteOrigin.everyone] && late.all.map(\.version) == [7])
        }
    }

    /// A replica stuck for hours keeps a bounded list of sightings, and its oldest.
    @Test func sightingsStayBoundedAndKeepTheOldest() {
        let sightings = PrimarySightings()
        let start = ContinuousClock.now
        for version in Int64(1)...10_000 {
            sightings.saw(version, at: start + .milliseconds(version))
        }
        sightings.saw(5, at: start + .seconds(100))
        let lag = sightings.lag(replayed: 0, reached: 10_000, at: start + .seconds(20))
        #expect(lag.versions == 10_000 && abs(lag.seconds - 19.999) < 1e-6, "timed from version 1: \(lag)")
        #expect(sightings.count <= PrimarySightings.capacity)
        let later = sightings.lag(replayed: 9_000, reached: 10_000, at: start + .seconds(20))
        #expect(later.versions == 1_000 && later.seconds > 9.99 && later.seconds < 11, "\(later)")
    }
}
