import DataMediator
import Synchronization

/// Reads of a version (the primary's) where each caller gets one begun after it asked,
/// and callers that ask while a read runs share the next one: a replica's reads learn
/// which writes were answered before they arrived at one look per moment, not one each.
///
/// A shared read answers its callers together, and one timer bounds them all: no task is
/// started per caller, only per read (a replica's every read with credentials asks).
final class FreshVersionRead: Sendable {
    private let read: @Sendable () async throws -> Int64
    /// How long after a read was first asked for its callers wait for it.
    private let bound: Duration
    /// The read running and the one queued behind it (which every caller arriving while
    /// the first runs joins).
    private let state = Mutex<(running: Batch?, queued: Batch?)>((nil, nil))

    /// A reader whose callers wait `bound` at most for a read, counted from the moment the
    /// read they share was first asked for (a primary that cannot be reached holds them
    /// that long, then each goes on without a version).
    init(within bound: Duration, _ read: @escaping @Sendable () async throws -> Int64) {
        self.bound = bound
        self.read = read
    }

    /// A version read after this call began; nil when the read failed or its time was up.
    func value() async -> Int64? {
        let batch = state.withLock { state -> Batch in
            // A queued read whose time ran out (the one before it is slow) answered its
            // callers already: it is not run, a new one takes its place.
            if let queued = state.queued, !queued.answered { return queued }
            let batch = Batch(bound: bound)
            if state.running == nil {
                state.running = batch
                run(batch)
            } else {
                state.queued = batch
            }
            return batch
        }
        return await batch.answer()
    }

    /// Runs `batch`'s read, then starts the one queued behind it and answers `batch`'s callers.
    /// The read is every caller's, so it is bounded by the store's timeout, not by what is
    /// left of the request that started it (``ReadTime``): a chain of reads started one
    /// from another kept the first request's time, and once it was spent every read failed
    /// and its callers read without waiting for the writes they had not heard of.
    private func run(_ batch: Batch) {
        Task {
            let version = try? await ReadTime.shared(read)
            state.withLock { state in
                state.running = state.queued
                state.queued = nil
                if let next = state.running { run(next) }
            }
            batch.give(version)
        }
    }

    /// One read's callers, answered together once: by the read, or by its timer with nil.
    private final class Batch: Sendable {
        /// The callers waiting until the answer comes; then the answer, for callers that
        /// join after it (they asked before the read began, so it is theirs too).
        private let slot = Mutex<(waiting: [CheckedContinuation<Int64?, Never>], answer: Int64??)>(([], nil))
        private let timer = Mutex<Task<Void, Never>?>(nil)

        init(bound: Duration) {
            let timer = Task { [weak self] in
                try? await Task.sleep(for: bound)
                self?.give(nil)
            }
            self.timer.withLock { $0 = timer }
        }

        /// Whether the callers were answered.
        var answered: Bool { slot.withLock { $0.answer != nil } }

        /// Waits for the answer.
        func answer() async -> Int64? {
            await withCheckedContinuation { continuation in
                let answered = slot.withLock { slot -> Int64?? in
                    if let answer = slot.answer { return answer }
                    slot.waiting.append(continuation)
                    return nil
                }
                if let answered { continuation.resume(returning: answered) }
            }
        }

        /// Answers every caller with `version` unless they were answered already, and ends
        /// the timer.
        func give(_ version: Int64?) {
            let waiting = slot.withLock { slot -> [CheckedContinuation<Int64?, Never>] in
                guard slot.answer == nil else { return [] }
                slot.answer = .some(version)
                defer { slot.waiting = [] }
                return slot.waiting
            }
            timer.withLock { $0 }?.cancel()
            for caller in waiting { caller.resume(returning: version) }
        }
    }
}
