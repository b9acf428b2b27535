import Synchronization

/// One read of a view's changes shared by the live streams that ask the same question
/// (the same view and slice, from the same version, as many at most) in the same moment:
/// a write wakes every stream of a list, and each asking the store on its own made one
/// client's streams a cost every writer paid, per stream.
///
/// A read is shared while the notifier has not published since it began (a stream woken
/// by a newer write never takes an older read) and for ``maximumAge`` at most (a heartbeat
/// still looks at the store itself, for writes no one published). A failed read is not kept.
/// Only streams share reads: a client that asks `/changes` right after its own write must
/// see it even before the notifier published it.
final class SharedChangeReads: Sendable {
    private struct Key: Hashable {
        let binding: String
        let since: Int64
        let limit: Int
    }

    private struct Read {
        let task: Task<ChangeSet, any Error>
        let began: ContinuousClock.Instant
    }

    private struct State {
        var generation: UInt64 = 0
        var reads: [Key: Read] = [:]
    }

    /// How long a read is shared.
    static let maximumAge: Duration = .seconds(1)

    private let state = Mutex(State())

    /// The changes of `binding` after `since`, at most `limit`: a read begun by another
    /// stream at the notifier's `generation`, or `read` now.
    func changes(
        binding: String,
        since: Int64,
        limit: Int,
        generation: UInt64,
        _ read: @escaping @Sendable () async throws -> ChangeSet
    ) async throws -> ChangeSet {
        let key = Key(binding: binding, since: since, limit: limit)
        let now = ContinuousClock.now
        let task: Task<ChangeSet, any Error> = state.withLock { state in
            if state.generation != generation {
                state.generation = generation
                state.reads.removeAll(keepingCapacity: true)
            }
            if let shared = state.reads[key], now - shared.began < Self.maximumAge { return shared.task }
            // Reads of another moment are dropped as new ones come: the table holds this
            // moment's questions only.
            state.reads = state.reads.filter { now - $0.value.began < Self.maximumAge }
            let task = Task {
                let changes = try await read()
                // Let go once its moment is over, not when the next stream of the list
                // asks: streams gone, it held up to a batch of changes with their items.
                Task { [weak self] in
                    try? await Task.sleep(for: Self.maximumAge)
                    self?.forget(key, began: now)
                }
                return changes
            }
            state.reads[key] = Read(task: task, began: now)
            return task
        }
        do {
            return try await task.value
        } catch {
            state.withLock { state in
                if let kept = state.reads[key], kept.task == task { state.reads[key] = nil }
            }
            throw error
        }
    }

    /// Drops the read of `key` begun at `began`, if it is still the one kept.
    private func forget(_ key: Key, began: ContinuousClock.Instant) {
        state.withLock { state in
            if state.reads[key]?.began == began { state.reads[key] = nil }
        }
    }

    /// How many reads are kept.
    var keptCount: Int { state.withLock { $0.reads.count } }
}
