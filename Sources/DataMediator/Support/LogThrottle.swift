import Synchronization

/// Counts events of one kind that a flood would log one line each (connections refused, a
/// database that cannot be reached), and says when to tell of them: one line each
/// ``interval`` at most, with how many came since the last one.
public final class LogThrottle: Sendable {
    /// The least time between two lines.
    public let interval: Duration
    private let state = Mutex<(count: Int, told: ContinuousClock.Instant?)>((0, nil))

    /// A throttle of one line each `interval`.
    public init(interval: Duration = .seconds(10)) {
        self.interval = interval
    }

    /// Counts one event; answers how many to tell of now (this one and those since the
    /// last line), or nil within ``interval`` of that line.
    public func count(at now: ContinuousClock.Instant = .now) -> Int? {
        state.withLock { state in
            state.count += 1
            if let told = state.told, now - told < interval { return nil }
            defer { state = (0, now) }
            return state.count
        }
    }
}
