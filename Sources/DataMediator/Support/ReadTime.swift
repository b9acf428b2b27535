/// When the reads of the task's request began: a store bounds each read it makes, and each
/// wait for a read replica to catch up, by what is left of its timeout since then, so that
/// the waits of one request add up to one timeout rather than one each (a client's read
/// that waited for its own write, then met a replica that stopped answering, took the
/// wait and a whole timeout more).
///
/// Nil (the default): each read has the store's whole timeout, as a stream's reads do.
public enum ReadTime {
    /// When the reads of the task's request began.
    @TaskLocal public static var began: ContinuousClock.Instant?

    /// What is left of `timeout` since ``began`` (all of it when nil), never below zero.
    public static func left(of timeout: Duration) -> Duration {
        guard let began else { return timeout }
        return max(.zero, min(timeout, began + timeout - .now))
    }

    /// Runs `work` on the store's whole timeout, whatever request began it: work shared by
    /// many requests (a read every caller waits on, a kept result's computation) must not
    /// fail for all of them because the request that started it had spent its time.
    public static func shared<T: Sendable>(_ work: @Sendable () async throws -> T) async rethrows -> T {
        try await $began.withValue(nil) { try await work() }
    }
}
