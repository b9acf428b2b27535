import Synchronization

/// How many requests may count a view's rows at once while its outline is read: an item
/// looked up before the outline is there is counted on the view's index, which at depth
/// costs tens of milliseconds; a view asked for by many at once (a cold start under load)
/// would have every request count and keep the database from finishing the outline. Past
/// the slots, a request waits for the outline instead.
final class CountingSlots: Sendable {
    private let taken = Mutex<[String: Int]>([:])
    /// The requests per view that may count at once.
    let perKey: Int

    init(perKey: Int = 2) {
        self.perKey = max(0, perKey)
    }

    /// Takes a slot of `key`; false when all are taken.
    func take(_ key: String) -> Bool {
        taken.withLock { taken in
            let now = taken[key, default: 0]
            guard now < perKey else { return false }
            taken[key] = now + 1
            return true
        }
    }

    /// Gives back a slot of `key` that ``take(_:)`` gave.
    func giveBack(_ key: String) {
        taken.withLock { taken in
            let now = taken[key, default: 0]
            taken[key] = now > 1 ? now - 1 : nil
        }
    }
}
