import DataMediator
import Synchronization

/// How fast each client may send a kind of request: a bucket per client (one verified
/// credential, or one address: ``ClientIdentity``) that holds a second's worth of them and
/// fills again at that rate. The share of requests in flight (``ClientShares``) bounds how
/// many one client has at once, not how many it sends: fast ones, one after another on many
/// connections, would still take the cores from the others.
final class ClientRates: Sendable {
    /// The requests a client may send a second (and at once, after a quiet second).
    let perSecond: Int
    private let now: @Sendable () -> ContinuousClock.Instant
    private let state = Mutex(State())

    private struct State {
        var buckets: [String: Bucket] = [:]
        /// When the clients whose buckets are full again were last forgotten.
        var prunedAt: ContinuousClock.Instant?
    }

    private struct Bucket {
        var tokens: Double
        var at: ContinuousClock.Instant
    }

    /// The most clients remembered; past it, those whose buckets are full again are
    /// forgotten (a full bucket is what a new client gets), at most once a second: while
    /// more clients than this sent requests within the last second, none is full again,
    /// and a pass over all of them for each new one (under the lock every request of these
    /// kinds takes) would have grown with the square of their number.
    static let remembered = 4_096

    /// Rates of `perSecond` requests a second per client, timed by `now`.
    init(perSecond: Int, now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.perSecond = max(1, perSecond)
        self.now = now
    }

    /// Takes one of `client`'s requests: nil when it may send it, else how many seconds
    /// until it may send one (at least 1).
    func take(for client: String) -> Int? {
        let now = now()
        let rate = Double(perSecond)
        return state.withLock { state in
            var bucket = state.buckets[client] ?? Bucket(tokens: rate, at: now)
            let elapsed = bucket.at.duration(to: now)
            let seconds = elapsed.inSeconds
            bucket.tokens = min(rate, bucket.tokens + max(0, seconds) * rate)
            bucket.at = now
            guard bucket.tokens >= 1 else {
                state.buckets[client] = bucket
                return max(1, Int(((1 - bucket.tokens) / rate).rounded(.up)))
            }
            bucket.tokens -= 1
            if state.buckets[client] == nil, state.buckets.count >= Self.remembered,
                state.prunedAt.map({ $0.duration(to: now) >= .seconds(1) }) ?? true
            {
                state.prunedAt = now
                state.buckets = state.buckets.filter { entry in
                    let idle = entry.value.at.duration(to: now)
                    return Double(idle.components.seconds) * rate + entry.value.tokens < rate
                }
            }
            state.buckets[client] = bucket
            return nil
        }
    }

    /// How many clients are remembered.
    var remembering: Int { state.withLock { $0.buckets.count } }
}
