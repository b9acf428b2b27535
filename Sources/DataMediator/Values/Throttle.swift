import Synchronization

/// Says yes at most once per interval, to whichever caller asks first (for housekeeping
/// that a request may trigger, such as purging expired keys).
public final class Throttle: Sendable {
    private let interval: Duration
    private let last = Mutex<ContinuousClock.Instant?>(nil)

    /// Creates a throttle that says yes at most once per `interval`.
    public init(every interval: Duration) {
        self.interval = interval
    }

    /// True when the interval has passed since the last true (or on the first call).
    public func isDue() -> Bool {
        let now = ContinuousClock.now
        return last.withLock { last in
            guard last.map({ now - $0 >= interval }) ?? true else { return false }
            last = now
            return true
        }
    }
}
