import Synchronization

/// Reads of a version (the primary's) where each caller gets one begun after it asked,
/// and callers that ask while a read runs share the next one: a replica's reads learn
/// which writes were answered before they arrived at one look per moment, not one each.
final class FreshVersionRead: Sendable {
    private let read: @Sendable () async throws -> Int64
    /// The read running and the one queued behind it (which every caller arriving while
    /// the first runs shares), each with its number.
    private let state = Mutex<(running: (Int, Task<Int64, any Error>)?, queued: (Int, Task<Int64, any Error>)?)>(
        (nil, nil)
    )
    private let numbers = Atomic<Int>(0)

    init(_ read: @escaping @Sendable () async throws -> Int64) {
        self.read = read
    }

    /// A version read after this call began, within `bound`; nil when the read failed or
    /// took longer (a primary that cannot be reached holds each caller for `bound` at most).
    func value(within bound: Duration) async -> Int64? {
        let task = state.withLock { state -> Task<Int64, any Error> in
            if let queued = state.queued { return queued.1 }
            let number = numbers.add(1, ordering: .relaxed).newValue
            if let running = state.running {
                let queued = Task {
                    _ = await running.1.result
                    self.state.withLock { $0 = (running: $0.queued, queued: nil) }
                    return try await self.run(number)
                }
                state.queued = (number, queued)
                return queued
            }
            let running = Task { try await self.run(number) }
            state.running = (number, running)
            return running
        }
        // The shared read runs on when this caller stops waiting for it: raced, not awaited
        // in a task group (which would wait for it).
        let answer = Answer()
        return await withCheckedContinuation { continuation in
            answer.slot.withLock { $0 = continuation }
            let timer = Task {
                try? await Task.sleep(for: bound)
                answer.give(nil)
            }
            Task {
                let version = try? await task.value
                timer.cancel()
                answer.give(version)
            }
        }
    }

    /// The waiting caller's continuation, resumed once, by the read or by the timer.
    private final class Answer: Sendable {
        let slot = Mutex<CheckedContinuation<Int64?, Never>?>(nil)

        func give(_ version: Int64?) {
            slot.withLock { slot in
                defer { slot = nil }
                return slot
            }?.resume(returning: version)
        }
    }

    /// Runs the read numbered `number`, and lets it go when it ends.
    private func run(_ number: Int) async throws -> Int64 {
        defer {
            state.withLock { state in
                if state.running?.0 == number { state.running = nil }
            }
        }
        return try await read()
    }
}
