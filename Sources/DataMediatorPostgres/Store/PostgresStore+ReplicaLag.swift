import DataMediator
import DataMediatorSQL
import Synchronization

extension PostgresStore {
    /// How far the read replica stands behind the primary now; nil without a read replica.
    ///
    /// The versions are the primary's version less the replica's. The time is measured from
    /// when this process first saw the primary at a version the replica has not replayed
    /// (at a look like this one, or at the primary's notification of a write), so it needs
    /// no clock shared with the database servers and holds for any replica, streaming or
    /// logical; it is at most the time between those sightings short.
    ///
    /// A replica that cannot be read within ``readinessBound`` (stopped, restarting, cut
    /// off) counts as standing where it was last seen: its lag grows while it is away, as
    /// an alert on it needs, rather than showing the last value read. A primary that cannot
    /// be read so counts as standing at the newest version it was seen at: through its
    /// outage the replica serves reads, and its lag is what it has not replayed of that
    /// (`/ready`'s lag bound held every service replica out of a load balancer then).
    public func replicaLag() async throws -> ReplicaLag? {
        guard readerConfiguration != nil else { return nil }
        // The replica first: a write committed between the two reads counts as lag, never
        // as the replica being ahead.
        let replayed: Int64
        do {
            replayed = try await boundedStatement(within: Self.readinessBound) { [logger] connection in
                try await Self.version(on: connection, logger: logger)
            }
        } catch {
            guard let last = primarySightings.lastReplayed else { throw error }
            replayed = last
        }
        let reached: Int64
        do {
            guard let read = try await Self.bounded({ try await self.primaryVersion() }) else {
                throw DataMediatorError(.unavailable, "The primary did not answer in time.")
            }
            reached = read
        } catch {
            guard let newest = primarySightings.newest else { throw error }
            reached = newest
        }
        primarySightings.saw(reached)
        return primarySightings.lag(replayed: replayed, reached: reached)
    }

    /// Notes that the primary reached `version` now (a write's notification says so).
    public func primaryReached(_ version: Int64) {
        guard readerConfiguration != nil else { return }
        primarySightings.saw(version)
    }
}

/// When this process first saw the primary at each version a read replica may not have
/// replayed yet (``PostgresStore/replicaLag()``): a version is kept until the replica is
/// seen holding it.
final class PrimarySightings: Sendable {
    private let sightings = Mutex<[(version: Int64, seen: ContinuousClock.Instant)]>([])
    /// The version the replica was last seen holding.
    private let replayed = Mutex<Int64?>(nil)
    /// The newest version the primary was seen at, or the replica seen holding.
    private let newestSeen = Atomic<Int64>(.min)
    /// How many sightings are kept at most: past it every second one is let go, so a
    /// replica stuck for hours costs a bounded list, and the oldest stays.
    static let capacity = 1_024

    /// Notes `version` seen on the primary now, if it is newer than every version seen.
    func saw(_ version: Int64, at now: ContinuousClock.Instant = .now) {
        newestSeen.max(version, ordering: .relaxed)
        sightings.withLock { sightings in
            guard version > (sightings.last?.version ?? .min) else { return }
            if sightings.count >= Self.capacity {
                sightings = sightings.enumerated().filter { $0.offset.isMultiple(of: 2) }.map(\.element)
            }
            sightings.append((version, now))
        }
    }

    /// The newest version the primary was seen at (or the replica seen holding); nil
    /// before any.
    var newest: Int64? {
        let version = newestSeen.load(ordering: .relaxed)
        return version == .min ? nil : version
    }

    /// Whether the primary was seen at `version` or past it (a look, a write's
    /// notification): a version it surely reached, without asking it.
    func reached(_ version: Int64) -> Bool { newestSeen.load(ordering: .relaxed) >= version }

    /// Notes the primary's version as a look at it read it: a store made anew stands
    /// below what was seen before, and its old versions are not taken as reached.
    func primaryStands(at version: Int64) {
        newestSeen.store(version, ordering: .relaxed)
    }

    /// The version the replica was last seen holding; nil before the first look.
    var lastReplayed: Int64? { replayed.withLock { $0 } }

    /// Notes the replica seen holding `version` by a look of another caller (a wait for it
    /// to replay a client's version), so a replica that goes away after one stands there.
    func replicaHolds(_ version: Int64) {
        newestSeen.max(version, ordering: .relaxed)
        replayed.withLock { $0 = max($0 ?? version, version) }
    }

    /// How many sightings are kept.
    var count: Int { sightings.withLock { $0.count } }

    /// The lag of a replica that has replayed `replayed` while the primary stands at
    /// `reached`; lets go of every sighting the replica holds.
    func lag(replayed: Int64, reached: Int64, at now: ContinuousClock.Instant = .now) -> ReplicaLag {
        self.replayed.withLock { $0 = max($0 ?? replayed, replayed) }
        return sightings.withLock { sightings in
            sightings.removeAll { $0.version <= replayed }
            guard reached > replayed, let oldest = sightings.first else { return ReplicaLag(versions: 0, seconds: 0) }
            return ReplicaLag(versions: reached - replayed, seconds: max((now - oldest.seen).inSeconds, 0))
        }
    }
}
