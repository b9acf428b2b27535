import Synchronization

/// How many of the store's writes may hold a connection of the primary's pool at once: the
/// rest wait here, holding none, within their time. Writes run one at a time past the
/// store's version lock anyway; without a bound, a burst of them (or one outside
/// transaction holding a row they need) took every connection while queued there, and the
/// pages and `/ready` that share the pool answered `503` though the database could be read.
final class WriteSlots: Sendable {
    private struct State {
        var free: Int
        var waiters: [(id: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
        var lastID: UInt64 = 0
    }

    private let state: Mutex<State>
    /// How many writes may hold a slot at once.
    let count: Int

    /// Slots for `count` writes at once.
    init(_ count: Int) {
        self.count = max(1, count)
        state = Mutex(State(free: max(1, count)))
    }

    /// How many slots are held now, and how many writes wait for one.
    var use: (held: Int, waiting: Int) {
        state.withLock { (count - $0.free, $0.waiters.count) }
    }

    /// Takes a slot, waiting up to `limit` for one (first come, first served); false when
    /// none came in time (or the task was cancelled). A write queued here waits as long as
    /// one queued for the store's version lock may (``StoreVersion/lockWaitFactor`` times
    /// the timeout): it is the same queue, held with no connection.
    func acquire(within limit: Duration) async -> Bool {
        if takeFree() { return true }
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                do {
                    try await self.acquire()
                    return true
                } catch {
                    return false
                }
            }
            group.addTask {
                try? await Task.sleep(for: limit)
                return false
            }
            var acquired = false
            if let first = await group.next() { acquired = first }
            group.cancelAll()
            // The slot may have come as the time ran out: it is kept, not lost.
            for await rest in group where rest { acquired = true }
            return acquired
        }
    }

    /// Takes a free slot at once, if there is one.
    private func takeFree() -> Bool {
        state.withLock { state in
            guard state.free > 0 else { return false }
            state.free -= 1
            return true
        }
    }

    /// Waits for a slot, first come first served.
    ///
    /// - Throws: `CancellationError` when the task is cancelled while it waits (its time
    ///   ran out): it holds no slot then.
    private func acquire() async throws {
        let id: UInt64? = state.withLock { state in
            if state.free > 0 {
                state.free -= 1
                return nil
            }
            state.lastID += 1
            return state.lastID
        }
        guard let id else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let cancelled = state.withLock { state in
                    guard !Task.isCancelled else { return true }
                    state.waiters.append((id, continuation))
                    return false
                }
                if cancelled { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                state.waiters.firstIndex { $0.id == id }.map { state.waiters.remove(at: $0).continuation }
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// Gives a slot back: to the write that has waited longest, if one waits.
    func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            if state.waiters.isEmpty {
                state.free += 1
                return nil
            }
            return state.waiters.removeFirst().continuation
        }
        next?.resume()
    }
}
