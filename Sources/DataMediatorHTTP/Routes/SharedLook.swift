import Synchronization

/// One look shared by every caller that asks within ``age`` of its start: `/metrics`
/// scraped in a flood (by one client, past every share: the operation routes come before
/// them) reads the store once a moment, not once a scrape, and holds none of its
/// connections for the others.
final class SharedLook<Value: Sendable>: Sendable {
    private let current = Mutex<(task: Task<Value?, Never>, began: ContinuousClock.Instant)?>(nil)
    /// How long a look is shared.
    let age: Duration

    init(age: Duration) {
        self.age = age
    }

    /// What `look` answers: the look begun less than ``age`` ago, or a new one.
    func value(_ look: @escaping @Sendable () async -> Value?) async -> Value? {
        let now = ContinuousClock.now
        let task = current.withLock { current in
            if let current, now - current.began < age { return current.task }
            let task = Task { await look() }
            current = (task, now)
            return task
        }
        return await task.value
    }
}
