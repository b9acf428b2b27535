import DataMediator
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization

/// How many of a kind of request each client has in flight, so that one client (one
/// verified credential, or one address: ``ClientIdentity``) can hold only its own share of
/// the server, however many connections it opens.
final class ClientShares: Sendable {
    private let held = Mutex<[String: Int]>([:])
    /// The most each client may hold at once.
    let share: Int

    init(share: Int) {
        self.share = max(1, share)
    }

    /// Takes one of `client`'s share; nil when it holds all of it. The share is given
    /// back when the returned hold is released (it is, when nothing refers to it).
    func take(for client: String) -> Hold? {
        let taken = held.withLock { held in
            let holding = held[client, default: 0]
            guard holding < share else { return false }
            held[client] = holding + 1
            return true
        }
        return taken ? Hold { [self] in give(back: client) } : nil
    }

    /// What `client` holds now.
    func holding(_ client: String) -> Int {
        held.withLock { $0[client, default: 0] }
    }

    private func give(back client: String) {
        held.withLock { held in
            let holding = held[client, default: 0] - 1
            held[client] = holding > 0 ? holding : nil
        }
    }

    /// One taken share (or turn, ``ClientLines``), given back when the hold goes away: a
    /// stream's body keeps it for as long as it runs, and a body that never runs gives it
    /// back all the same.
    final class Hold: Sendable {
        private let release: @Sendable () -> Void

        init(release: @escaping @Sendable () -> Void) {
            self.release = release
        }

        deinit { release() }
    }
}
