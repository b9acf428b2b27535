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
    /// Set by ``finishAll()``: later subscriptions end at once.
    private let finished = Atomic<Bool>(false)
    private let nextID = Atomic<Int>(0)

    /// Creates a notifier.
    public init() {}

    /// A stream of signals: `changed` after writes, `tick` every `interval`. It ends when
    /// the consumer stops iterating or its task is cancelled, and for every subscriber when
    /// the service shuts down (``finishAll()``).
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
        // Looked at and added under the lock ``finishAll()`` sets it under: a subscriber
        // added between its look and the shutdown's was never finished, and held the
        // shutdown for its whole grace.
        let added = subscribers.withLock { subscribers in
            guard !finished.load(ordering: .acquiring) else { return false }
            subscribers[id] = continuation
            return true
        }
        if !added { continuation.finish() }
        return stream
    }

    /// How many times ``publish()`` was called: reads begun before it may miss its write.
    public var generation: UInt64 { published.load(ordering: .acquiring) }
    private let published = Atomic<UInt64>(0)

    /// The newest version a publisher named (``publish(version:)``), 0 before any.
    public var latestVersion: Int64 { latest.load(ordering: .acquiring) }
    private let latest = Atomic<Int64>(0)

    /// Wakes every subscriber: something was written, at `version` when the publisher knows
    /// it (a notification of the primary, which a read replica may not hold yet), for the
    /// client `writer` tags when the notification names one (``WriteOrigin``).
    public func publish(version: Int64? = nil, writer: String? = nil) {
        // The writer's write is noted before the version counts as heard: a read that finds
        // it heard (``heard(_:within:)``) finds the write noted too.
        if let version, let writer {
            if writer == WriteOrigin.everyone { everyone.max(version, ordering: .acquiringAndReleasing) }
            for observer in writerObservers.withLock({ $0 }) { observer(writer, version) }
        }
        if let version {
            latest.max(version, ordering: .acquiringAndReleasing)
            let heard = waiters.withLock { waiters in
                let heard = waiters.filter { $0.value.version <= version }
                for id in heard.keys { waiters[id] = nil }
                return heard.values.map(\.continuation)
            }
            for continuation in heard { continuation.resume() }
        }
        published.add(1, ordering: .releasing)
        let all = subscribers.withLock { Array($0.values) }
        for continuation in all { continuation.yield(.changed) }
    }

    private let writerObservers = Mutex<[@Sendable (_ writer: String, _ version: Int64) -> Void]>([])
    private let waiters = Mutex<[Int: (version: Int64, continuation: CheckedContinuation<Void, Never>)]>([:])

    /// Waits until a publisher has named `version` or a later one (``latestVersion``), for
    /// `bound` at most; answers whether it has. A replica of the service awaits its own
    /// write's notification so that, when it answers the write, the other replicas (which
    /// hear the same notification at the same moment) have heard it too.
    public func heard(_ version: Int64, within bound: Duration) async -> Bool {
        guard latestVersion < version else { return true }
        let id = nextID.add(1, ordering: .relaxed).newValue
        let timer = Timer()
        await withCheckedContinuation { continuation in
            let waits = waiters.withLock { waiters in
                // Published between the look above and here: nothing would wake it.
                guard latestVersion < version else { return false }
                waiters[id] = (version, continuation)
                return true
            }
            guard waits else { return continuation.resume() }
            // The bound's end wakes it unless a publisher did first; then the timer ends.
            timer.task.withLock {
                $0 = Task {
                    try? await Task.sleep(for: bound)
                    self.waiters.withLock { $0.removeValue(forKey: id) }?.continuation.resume()
                }
            }
        }
        timer.task.withLock { $0 }?.cancel()
        return latestVersion >= version
    }

    /// The timer of one ``heard(_:within:)``, ended when a publisher woke it first.
    private final class Timer: Sendable {
        let task = Mutex<Task<Void, Never>?>(nil)
    }

    /// Calls `observer` with the client's tag and the version of each write published with
    /// its writer (``publish(version:writer:)``): writes made through any replica of the
    /// service, so that this one can hold the client's next reads until they hold the write.
    ///
    /// An observer that comes after a listener began to listen (the server is built after
    /// the store's listener starts) hears the latest version published for
    /// ``WriteOrigin/everyone`` at once.
    public func observeWriters(_ observer: @escaping @Sendable (_ writer: String, _ version: Int64) -> Void) {
        writerObservers.withLock { $0.append(observer) }
        let unheard = everyone.load(ordering: .acquiring)
        if unheard > 0 { observer(WriteOrigin.everyone, unheard) }
    }

    /// The latest version published for ``WriteOrigin/everyone``; 0 for none.
    private let everyone = Atomic<Int64>(0)

    /// Ends every subscriber's stream, now and from now on: the service is shutting down.
    public func finishAll() {
        let all = subscribers.withLock { subscribers in
            finished.store(true, ordering: .releasing)
            return Array(subscribers.values)
        }
        for continuation in all { continuation.finish() }
    }

    /// How many streams are subscribed now.
    public var subscriberCount: Int { subscribers.withLock { $0.count } }
}
