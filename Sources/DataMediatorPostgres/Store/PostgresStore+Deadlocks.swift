import PostgresNIO

extension PostgresStore {
    /// How many times a write runs that PostgreSQL keeps ending to break deadlocks.
    static let writeAttempts = 3

    /// A write PostgreSQL ended to break a deadlock (40P01) before its commit: nothing of
    /// it is stored, and it may run again (``write(_:)``).
    struct DeadlockEnded: Error {
        /// PostgreSQL's error.
        let error: any Error
    }
}
