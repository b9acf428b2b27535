import Synchronization

/// Counts events of one kind that a flood would log one line each (connections refused, a
/// database that cannot be reached), and says when to tell of them: one line each
/// ``interval`` at most, with how many came since the last one.
public final class LogThrottle: Sendable {
    /// The least time between two lines.
    public let interval: Duration
    private let state = Mutex<(count: Int, told: ContinuousClock.Instant?, flushAsked: Bool)>((0, nil, false))

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
            defer { state = (0, now, false) }
            return state.count
        }
    }

    /// After ``count(at:)`` answered nil: how long until the events held since the last
    /// line may be told (``flush(at:)``), once for each line (nil when asked again): a
    /// burst's last events are told when its interval ends, not at the next event, which
    /// may never come.
    public func flushDelay(at now: ContinuousClock.Instant = .now) -> Duration? {
        state.withLock { state in
            guard !state.flushAsked, state.count > 0, let told = state.told else { return nil }
            state.flushAsked = true
            return max(.zero, interval - (now - told))
        }
    }

    /// The events held since the last line, to tell of now (a line that starts a new
    /// interval); nil when none is held.
    public func flush(at now: ContinuousClock.Instant = .now) -> Int? {
        state.withLock { state in
            guard state.count > 0 else {
                state.flushAsked = false
                return nil
            }
            defer { state = (0, now, false) }
            return state.count
        }
    }
}
