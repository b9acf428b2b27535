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
    /// held ones when more than ``limit`` are). Nothing after ``finish()``.
    func yield(_ update: ListUpdate) {
        let waiter = state.withLock { state -> CheckedContinuation<ListUpdate?, Never>? in
            guard !state.finished else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                state.read = update.snapshot
                return waiter
            }
            state.pending.append(update)
            if state.pending.count > limit {
                let later = state.pending[1].snapshot
                let merged = ListUpdate(batch: BatchUpdate(from: state.read, to: later), snapshot: later)
                state.pending.replaceSubrange(0...1, with: [merged])
            }
            return nil
        }
        waiter?.resume(returning: update)
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
