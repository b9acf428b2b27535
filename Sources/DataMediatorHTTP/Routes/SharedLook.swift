import Synchronization

/// One look shared by every caller that asks while it runs, or within ``age`` of its end:
/// `/metrics` scraped in a flood (by one client, past every share: the operation routes
/// come before them) reads the store once a moment, not once a scrape, and holds none of
/// its connections for the others. The look runs in the first caller's task (no task of
/// its own); the others wait for its answer.
final class SharedLook<Value: Sendable>: Sendable {
    private struct State {
        /// Whether a caller is looking now.
        var running = false
        /// The callers waiting for that look's answer.
        var waiters: [CheckedContinuation<Value?, Never>] = []
        /// The last look's answer and when it ended.
        var last: (value: Value?, ended: ContinuousClock.Instant)?
    }

    /// What a caller does: take an answer, wait for the look running, or look.
    private enum Step {
        case answered(Value?)
        case wait
        case look
    }

    private let state = Mutex(State())
    /// How long after a look ended its answer is given without looking again.
    let age: Duration

    /// A look shared for `age` after it ends.
    init(age: Duration) {
        self.age = age
    }

    /// What `look` answers: the answer of a look running now or ended less than ``age``
    /// ago, or of a new one made by this caller.
    func value(_ look: () async -> Value?) async -> Value? {
        let now = ContinuousClock.now
        let step = state.withLock { state -> Step in
            if let last = state.last, now - last.ended < age { return .answered(last.value) }
            if state.running { return .wait }
            state.running = true
            return .look
        }
        switch step {
        case .answered(let value):
            return value
        case .look:
            let value = await look()
            let waiters = state.withLock { state in
                state.running = false
                state.last = (value, .now)
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume(returning: value) }
            return value
        case .wait:
            return await withCheckedContinuation { waiter in
                // The look may have ended since: its answer then, at once.
                let ended = state.withLock { state -> Value?? in
                    guard state.running else { return .some(state.last?.value) }
                    state.waiters.append(waiter)
                    return nil
                }
                if let value = ended { waiter.resume(returning: value) }
            }
        }
    }
}
