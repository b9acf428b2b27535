import DataMediator
import DataMediatorSQL
import PostgresNIO
import Synchronization

extension PostgresStore {
    /// Runs `body` in a transaction on the primary, committed when it returns and rolled
    /// back when it throws; `body` is given the mark its session sets once it holds the
    /// version lock.
    ///
    /// A write that ended before its commit stored nothing (its statements are the
    /// database's work alone), so it runs again: one PostgreSQL ended to break a deadlock,
    /// up to ``writeAttempts`` runs; one that met a row lock while it held the version lock
    /// (and let go of both, so the store's other writes go on), after a pause, for as long
    /// as ``timeout`` from its first run, each run after the first waiting
    /// ``StoreVersion/underLockWaitAgain`` under the version lock.
    func write<Result: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection, VersionLockMark) async throws -> Result
    ) async throws -> Result {
        // A write waits for its slot holding no connection, as long as it may wait for the
        // version lock (the same queue); its time for a connection starts once it has one.
        guard await writeSlots.acquire(within: timeout * StoreVersion.lockWaitFactor) else {
            throw DataMediatorError(.unavailable, "\(primaryGate.named) did not answer in time; retry shortly.")
        }
        defer { writeSlots.release() }
        let deadline = ContinuousClock.now + timeout
        var deadlocks = 0
        var pause = Duration.milliseconds(5)
        var blocked = false
        while true {
            // The first run takes the version lock before its row: queued writes hold no row
            // then, so crossing triggers of two writes do not end each other. A run after one
            // that met a held row waits for its row first, holding nothing of the store's.
            let mark = VersionLockMark(
                underLockWait: blocked ? StoreVersion.underLockWaitAgain : StoreVersion.underLockWait,
                rowFirst: blocked
            )
            do {
                return try await transaction(on: primaryGate, "START TRANSACTION", writes: true, mark: mark) {
                    connection in try await body(connection, mark)
                }
            } catch let ended as WriteEnded {
                switch ended.reason {
                case .deadlock:
                    deadlocks += 1
                    guard deadlocks < Self.writeAttempts else { throw answer(to: ended.error, leased: true) }
                    logger.info(
                        "a write that PostgreSQL ended to break a deadlock runs again",
                        metadata: ["attempt": "\(deadlocks + 1)", "error": "\(String(reflecting: ended.error))"]
                    )
                case .blockedUnderVersionLock:
                    blocked = true
                    blockedRuns.add(1, ordering: .relaxed)
                    // The next run must end by the deadline (its pause and its wait with it).
                    guard ContinuousClock.now + pause * 1.5 + .milliseconds(100) < deadline else {
                        throw DataMediatorError(
                            .unavailable,
                            "The write waited for a row another transaction holds (one its foreign keys or triggers "
                                + "reach); nothing is stored; retry shortly."
                        )
                    }
                    logger.debug("a write met a row lock while it held the version lock; it runs again")
                    try await Task.sleep(for: pause * Double.random(in: 0.5...1.5))
                    pause = min(pause * 2, .milliseconds(100))
                }
            }
        }
    }

    /// How many times a write runs that PostgreSQL keeps ending to break deadlocks.
    static let writeAttempts = 3

    /// A write that ended before its commit and may run again: nothing of it is stored
    /// (``write(_:)``).
    struct WriteEnded: Error {
        /// Why it ended.
        enum Reason {
            /// PostgreSQL ended it to break a deadlock (40P01).
            case deadlock
            /// It waited past ``StoreVersion/underLockWait`` for a row lock while holding the
            /// version lock (55P03): another transaction holds a row its foreign keys,
            /// triggers or cascades reach.
            case blockedUnderVersionLock
        }

        let reason: Reason
        /// PostgreSQL's error.
        let error: any Error
    }

    /// Whether a write's transaction holds the store's version lock, told by its session
    /// (``PostgresSession/tookVersionLock()``).
    final class VersionLockMark: Sendable {
        private let held = Atomic(false)
        /// How long the transaction waits for a row lock once it holds the version lock.
        let underLockWait: String
        /// Whether the write locks its item's row before the version lock
        /// (``SQLSession/rowLockFirst``).
        let rowFirst: Bool

        /// A mark not set, for a transaction that waits `underLockWait` for a row lock
        /// under the version lock and takes its row's lock first when `rowFirst`.
        init(underLockWait: String, rowFirst: Bool = true) {
            self.underLockWait = underLockWait
            self.rowFirst = rowFirst
        }

        /// Notes that the transaction holds the version lock.
        func set() { held.store(true, ordering: .relaxed) }

        /// Whether the transaction holds the version lock.
        var isSet: Bool { held.load(ordering: .relaxed) }
    }

    /// Why `error`, thrown by a write's transaction before its commit, lets it run again:
    /// nil when it does not.
    static func endedWrite(_ error: any Error, versionLocked: Bool) -> WriteEnded? {
        switch (error as? PSQLError)?.serverInfo?[.sqlState] {
        case "40P01": WriteEnded(reason: .deadlock, error: error)
        case "55P03" where versionLocked: WriteEnded(reason: .blockedUnderVersionLock, error: error)
        default: nil
        }
    }
}
