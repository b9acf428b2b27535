import Synchronization

/// The updates a session publishes, for one reader: in order, each held until it is read.
///
/// A reader that falls more than ``limit`` updates behind (or one that never reads) gets
/// the oldest two it has not read merged into one, whose batch leads from the snapshot it
/// read last to the later one's: what is held stays bounded, and every batch still applies
/// to what the reader shows. An `AsyncStream` would hold every update of a busy list until
/// read, or drop some (and with them the steps a batch starts from).
public final class ListUpdates: AsyncSequence, Sendable {
    /// One update: a batch and the snapshot it leads to.
    public typealias Element = ListUpdate

    /// How many unread updates are held at most.
    public let limit: Int

    private struct State {
        var pending: [ListUpdate] = []
        /// How many updates were taken off the front of ``pending`` (read, or merged into
        /// the one after): tells a merge computed outside the lock whether the two it
        /// merged are still the first two.
        var taken = 0
        /// The snapshot of the last update the reader took: where the first pending starts.
        var read: ListSnapshot
        var waiter: CheckedContinuation<ListUpdate?, Never>?
        var finished = false
    }

    private let state: Mutex<State>

    /// Updates starting from `start` (what the reader shows before the first), holding at
    /// most `limit` unread ones (at least 1).
    init(from start: ListSnapshot, limit: Int = 16) {
        self.limit = Swift.max(1, limit)
        state = Mutex(State(read: start))
    }

    /// Publishes `update`: to the waiting reader, or held for it (merging the oldest two
    /// held ones when more than ``limit`` are). Nothing after ``finish()``. The merge's
    /// diff of two whole snapshots runs outside the lock, which the reader's ``next()``
    /// takes too: a reader behind (on the main actor, say) is not held up by it.
    func yield(_ update: ListUpdate) {
        var merge: (from: ListSnapshot, to: ListSnapshot, taken: Int)?
        let waiter = state.withLock { state -> CheckedContinuation<ListUpdate?, Never>? in
            guard !state.finished else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                state.read = update.snapshot
                return waiter
            }
            state.pending.append(update)
            merge = Self.merge(in: state, limit: limit)
            return nil
        }
        waiter?.resume(returning: update)
        while let (from, to, taken) = merge {
            let merged = ListUpdate(batch: BatchUpdate(from: from, to: to), snapshot: to)
            merge = state.withLock { state in
                // Read meanwhile: the first two held are others now (or fewer are held).
                if state.taken == taken, state.pending.count > limit {
                    state.pending.replaceSubrange(0...1, with: [merged])
                    state.taken += 1
                }
                return Self.merge(in: state, limit: limit)
            }
        }
    }

    /// The oldest two held updates to merge, when more than `limit` are held: from the
    /// snapshot the reader read last to the second one's.
    private static func merge(in state: State, limit: Int) -> (from: ListSnapshot, to: ListSnapshot, taken: Int)? {
        guard state.pending.count > limit else { return nil }
        return (state.read, state.pending[1].snapshot, state.taken)
    }

    /// Ends the updates: the reader gets those still held, then the end.
    func finish() {
        let waiter = state.withLock { state in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// The next update; nil once finished and read, or when the reading task is cancelled.
    /// A second reader waiting at once ends the first one's wait with nil (there is one
    /// reader), rather than leaving it waiting for ever.
    func next() async -> ListUpdate? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<ListUpdate?, Never>) in
                var displaced: CheckedContinuation<ListUpdate?, Never>?
                let answer = state.withLock { state -> ListUpdate?? in
                    if !state.pending.isEmpty {
                        let update = state.pending.removeFirst()
                        state.taken += 1
                        state.read = update.snapshot
                        return .some(update)
                    }
                    if state.finished || Task.isCancelled { return .some(nil) }
                    displaced = state.waiter
                    state.waiter = continuation
                    return .none
                }
                displaced?.resume(returning: nil)
                if let answer { continuation.resume(returning: answer) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: nil)
        }
    }

    /// How many updates are held unread.
    var heldCount: Int { state.withLock { $0.pending.count } }

    /// Whether a reader is waiting for the next update.
    var isWaited: Bool { state.withLock { $0.waiter != nil } }

    /// Reads the updates in order.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let updates: ListUpdates

        /// The next update, as ``ListUpdates`` hands it out.
        public mutating func next() async -> ListUpdate? {
            await updates.next()
        }
    }

    /// An iterator over the updates; there is one reader, so make one.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(updates: self)
    }
}
