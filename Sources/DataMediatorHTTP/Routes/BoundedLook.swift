/// A look at the store for `GET /ready` or `GET /metrics`, bounded in time: a load
/// balancer's health check and a metrics scrape give up after a few seconds, and a store
/// that cannot answer now (a database or replica down, whose pool waits for a connection
/// for the whole database timeout) must be told as such within them.
enum BoundedLook {
    /// How long a look may take.
    static let bound = Duration.seconds(3)

    /// What `look` answers within `bound`; nil when it did not answer in time (it is
    /// cancelled then).
    static func run<Result: Sendable>(
        within bound: Duration = bound,
        _ look: @escaping @Sendable () async throws -> Result
    ) async throws -> Result? {
        try await withThrowingTaskGroup(of: Result?.self) { group in
            group.addTask { try await look() }
            group.addTask {
                try await Task.sleep(for: bound)
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
    }
}
