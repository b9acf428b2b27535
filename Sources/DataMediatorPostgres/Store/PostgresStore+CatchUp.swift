import DataMediator
import DataMediatorSQL
import PostgresNIO
import Synchronization

extension PostgresStore {
    /// How often a wait for the read replica looks at its version.
    static let catchUpPoll = Duration.milliseconds(20)

    /// Waits until the read replica has replayed the store's `version`: `caughtUp` when it
    /// holds it (already, or within ``timeout``, or what is left of the request's
    /// (``ReadTime``); a read made before this look may have missed it), `stillBehind` when
    /// the time ran out; `notBehind` at once without a read replica, or when the primary
    /// never reached `version` (a version from another store, or a store reset).
    ///
    /// A client's version may come from the primary (a write) or from another service
    /// replica's reads, ahead of this replica's: its reads wait for it rather than answer
    /// as if the store had gone back. Every waiter shares one read of the replica's version
    /// per ``catchUpPoll``.
    func catchUp(to version: Int64) async throws -> CatchUp {
        guard readerConfiguration != nil else { return .notBehind }
        var replayed = try await replicaVersion()
        // Replayed since the read that asked: that read missed it, the next will not.
        guard replayed < version else { return .caughtUp }
        // The request's time is spent (``ReadTime``): not asked of the primary either.
        let left = ReadTime.left(of: timeout)
        guard left > .zero else { return .stillBehind }
        // A version this process saw the primary reach (most often the client's write,
        // heard from its notification) needs no look at the primary: the wait goes on
        // while the primary does not answer, and ends once the replica holds it.
        if !primarySightings.reached(version) {
            guard version <= (try await primaryVersion()) else { return .notBehind }
        }
        let deadline = ContinuousClock.now + left
        while replayed < version {
            guard ContinuousClock.now + Self.catchUpPoll < deadline else { return .stillBehind }
            try await Task.sleep(for: Self.catchUpPoll)
            replayed = try await replicaVersion()
        }
        return .caughtUp
    }

    /// The read replica's version, as replayed now (shared by the callers of one moment).
    func replicaVersion() async throws -> Int64 {
        try await replayedVersion.value {
            let version = try await self.readStatement { [logger = self.logger] connection in
                try await Self.version(on: connection, logger: logger)
            }
            self.primarySightings.replicaHolds(version)
            return version
        }
    }

    /// The primary's version now (the store's, without a read replica).
    public func primaryVersion() async throws -> Int64 {
        let version = try await transaction(on: primaryGate, nil, writes: false) { [logger] connection in
            try await Self.version(on: connection, logger: logger)
        }
        primarySightings.primaryStands(at: version)
        return version
    }

    /// The store's version, read on `connection`.
    static func version(on connection: PostgresConnection, logger: Logger) async throws -> Int64 {
        let rows = try await connection.query(
            PostgresQuery(unsafeSQL: StoreVersion.currentSQL(.postgres)),
            logger: logger
        )
        for try await version in rows.decode(Int64.self) { return version }
        throw DataMediatorError(.unavailable, "The store has no version row.")
    }
}

/// One read of a version shared by every caller that asks within `age` of its start: the
/// streams and requests waiting for a read replica look at it once per moment, not once
/// each.
final class SharedVersionRead: Sendable {
    private let current = Mutex<(task: Task<Int64, any Error>, began: ContinuousClock.Instant)?>(nil)
    /// How long a read is shared.
    let age: Duration
    /// How many reads were begun (a test's way to know a wait has looked).
    let begun = Atomic<Int>(0)

    init(age: Duration) {
        self.age = age
    }

    /// The version `read` answers: a read begun less than ``age`` ago, or a new one.
    func value(_ read: @escaping @Sendable () async throws -> Int64) async throws -> Int64 {
        let now = ContinuousClock.now
        let task = current.withLock { current in
            if let current, now - current.began < age { return current.task }
            // The read is every caller's: bounded by the store's timeout, not by what is
            // left of the request that began it (``ReadTime``).
            let task = Task { try await ReadTime.shared(read) }
            begun.add(1, ordering: .relaxed)
            current = (task, now)
            return task
        }
        return try await task.value
    }
}
