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

    /// Slots for `count` writes at once.
    init(_ count: Int) {
        state = Mutex(State(free: max(1, count)))
    }

    /// Waits for a slot, first come first served.
    ///
    /// - Throws: `CancellationError` when the task is cancelled while it waits (its time
    ///   ran out): it holds no slot then.
    func acquire() async throws {
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
