import Synchronization

/// Each client's line of one kind of request (writes, or reads of lists): at most
/// ``share`` of one client's in flight at once, the rest waiting in its own line, in the
/// order they came, rather than in the one line every client shares (the store's queue of
/// writes, the cores, the pool's connections).
///
/// A store applies its writes one at a time, and the cores answer only so many pages at
/// once, so a client that sends many at once gains little by it, but every other client's
/// request would wait behind all of them: with its own line, another client's waits behind
/// ``share`` of them at most. Nothing is refused for it (a client that sends many in
/// parallel, an import or a test suite, sees them all answered).
final class ClientLines: Sendable {
    /// The most requests of one client in flight at once.
    let share: Int
    private let lines = Mutex(Lines())

    private struct Lines {
        var nextWaiter: UInt64 = 0
        var byClient: [String: Line] = [:]
    }

    private struct Line {
        var holding = 0
        var waiting: [(id: UInt64, turn: CheckedContinuation<Void, any Error>)] = []
    }

    init(share: Int) {
        self.share = max(1, share)
    }

    /// Waits for `client`'s turn; the turn passes on when the returned hold goes away.
    ///
    /// - Throws: `CancellationError` when the task is cancelled while it waits (its client
    ///   went away); it then holds no turn.
    func enter(_ client: String) async throws -> ClientShares.Hold {
        let id = lines.withLock { lines in
            defer { lines.nextWaiter += 1 }
            return lines.nextWaiter
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (turn: CheckedContinuation<Void, any Error>) in
                let now: Result<Void, any Error>? = lines.withLock { lines in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    var line = lines.byClient[client, default: Line()]
                    defer { lines.byClient[client] = line }
                    guard line.holding >= share else {
                        line.holding += 1
                        return .success(())
                    }
                    line.waiting.append((id, turn))
                    return nil
                }
                if let now { turn.resume(with: now) }
            }
        } onCancel: {
            let left = lines.withLock { lines -> CheckedContinuation<Void, any Error>? in
                guard let index = lines.byClient[client]?.waiting.firstIndex(where: { $0.id == id }) else { return nil }
                return lines.byClient[client]?.waiting.remove(at: index).turn
            }
            left?.resume(throwing: CancellationError())
        }
        return ClientShares.Hold { [self] in leave(client) }
    }

    /// How many of `client`'s requests are in flight, and how many wait.
    func state(of client: String) -> (holding: Int, waiting: Int) {
        lines.withLock { ($0.byClient[client]?.holding ?? 0, $0.byClient[client]?.waiting.count ?? 0) }
    }

    /// Gives `client`'s turn to the next write in its line, else back.
    private func leave(_ client: String) {
        let next = lines.withLock { lines -> CheckedContinuation<Void, any Error>? in
            guard var line = lines.byClient[client] else { return nil }
            if line.waiting.isEmpty {
                line.holding -= 1
                lines.byClient[client] = line.holding > 0 ? line : nil
                return nil
            }
            let next = line.waiting.removeFirst().turn
            lines.byClient[client] = line
            return next
        }
        next?.resume()
    }
}
