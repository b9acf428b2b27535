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
    private let buckets = Mutex<[String: Bucket]>([:])

    private struct Bucket {
        var tokens: Double
        var at: ContinuousClock.Instant
    }

    /// The most clients remembered; past it, those whose buckets are full again are
    /// forgotten (a full bucket is what a new client gets).
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
        return buckets.withLock { buckets in
            var bucket = buckets[client] ?? Bucket(tokens: rate, at: now)
            let elapsed = bucket.at.duration(to: now)
            let seconds = elapsed.inSeconds
            bucket.tokens = min(rate, bucket.tokens + max(0, seconds) * rate)
            bucket.at = now
            guard bucket.tokens >= 1 else {
                buckets[client] = bucket
                return max(1, Int(((1 - bucket.tokens) / rate).rounded(.up)))
            }
            bucket.tokens -= 1
            if buckets[client] == nil, buckets.count >= Self.remembered {
                buckets = buckets.filter { entry in
                    let idle = entry.value.at.duration(to: now)
                    return Double(idle.components.seconds) * rate + entry.value.tokens < rate
                }
            }
            buckets[client] = bucket
            return nil
        }
    }
}
