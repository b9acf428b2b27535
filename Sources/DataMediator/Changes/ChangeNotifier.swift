import Synchronization

/// Tells live streams that a source may have changed. Writers only signal; each stream
/// reads the change log at its own pace, so a slow stream never holds up a writer.
///
/// A subscriber's signals are coalesced (at most one waits), so its memory stays bounded
/// however fast writes come.
public final class ChangeNotifier: Sendable {
    /// What a subscriber is woken for.
    public enum Signal: Sendable, Hashable {
        /// A write committed.
        case changed
        /// Time for a heartbeat (and a look at the version, for writes made elsewhere).
        case tick
    }

    private let subscribers = Mutex<[Int: AsyncStream<Signal>.Continuation]>([:])
    private let nextID = Atomic<Int>(0)

    /// Creates a notifier.
    public init() {}

    /// A stream of signals: `changed` after writes, `tick` every `interval`. It ends when
    /// the consumer stops iterating or its task is cancelled.
    public func subscribe(tick interval: Duration) -> AsyncStream<Signal> {
        let id = nextID.add(1, ordering: .relaxed).newValue
        let (stream, continuation) = AsyncStream<Signal>.makeStream(bufferingPolicy: .bufferingNewest(2))
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                continuation.yield(.tick)
            }
        }
        continuation.onTermination = { [weak self] _ in
            ticker.cancel()
            _ = self?.subscribers.withLock { $0.removeValue(forKey: id) }
        }
        subscribers.withLock { $0[id] = continuation }
        return stream
    }

    /// Wakes every subscriber: something was written.
    public func publish() {
        let all = subscribers.withLock { Array($0.values) }
        for continuation in all { continuation.yield(.changed) }
    }

    /// How many streams are subscribed now.
    public var subscriberCount: Int { subscribers.withLock { $0.count } }
}
