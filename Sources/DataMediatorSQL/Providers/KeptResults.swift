import DataMediator
import Synchronization

/// Results computed from a list's rows, kept per key (a view's binding) with the stamp of
/// the tables they were computed at (``TableStamps``): a request at the same stamp takes
/// the kept result, and the first request at a new stamp computes it once while the others
/// at that stamp wait for it, so a write does not make every following reader recompute.
///
/// At most `capacity` keys are kept. A key asked for once is on probation; asked again, it
/// is protected, and the one used longest ago among those on probation goes first: one
/// client asking for many keys once each (new slices, one after another) drops only
/// other keys asked once, never those the clients come back to. Protected keys are at
/// most four fifths of the capacity (the one used longest ago goes back on probation), so
/// a key asked for anew can stay long enough to be asked again.
///
/// A slow computation (``slowComputation`` or longer) rests its key for ``restFactor``
/// times its length: no computation of it starts in the background
/// (``refresh(_:stamp:compute:)``) meanwhile. Under a steady stream of writes the service
/// cannot follow (another program's), a key's result is stale almost as soon as it is
/// computed, and computing it back to back would keep the database busy for nothing.
public final class KeptResults<Value: Sendable>: Sendable {
    private struct Entry: Sendable {
        let stamp: Int64
        /// The computation; nil for a value derived from an earlier one (``advance(from:to:_:)``).
        let task: Task<Value, any Error>?
        var value: Value?
        var used: UInt64
        /// Whether the key was asked for again since it was kept (``KeptResults``).
        var protected: Bool = false
        /// Until when no computation of the key starts in the background.
        var restsUntil: ContinuousClock.Instant?
    }

    private struct State: Sendable {
        var entries: [String: Entry] = [:]
        var clock: UInt64 = 0
    }

    private let state = Mutex(State())
    /// The most keys kept.
    public let capacity: Int
    /// How long a computation takes at least for its key to rest after it.
    public let slowComputation: Duration
    /// How many times a slow computation's length its key rests.
    public let restFactor: Int

    /// An empty store of results for at most `capacity` keys, where a computation of
    /// `slowComputation` or longer rests its key for `restFactor` times its length.
    public init(capacity: Int = 256, slowComputation: Duration = .milliseconds(50), restFactor: Int = 4) {
        self.capacity = max(1, capacity)
        self.slowComputation = slowComputation
        self.restFactor = max(0, restFactor)
    }

    /// The newest result computed for `key`, whatever its stamp (the caller checks it
    /// against the stamp of its snapshot); nil while none is computed.
    public func latest(_ key: String) -> Value? {
        state.withLock { state in
            guard state.entries[key]?.value != nil else { return nil }
            return Self.use(key, in: &state, protecting: protectedMost)
        }
    }

    /// The result for `key` at `stamp`: kept, being computed, or computed now by `compute`.
    /// A failed computation is not kept.
    public func value(
        _ key: String,
        stamp: Int64,
        compute: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        let kept: Value? = state.withLock { state in
            guard let entry = state.entries[key], entry.stamp == stamp, entry.value != nil else { return nil }
            return Self.use(key, in: &state, protecting: protectedMost)
        }
        if let kept { return kept }
        let task: Task<Value, any Error> = state.withLock { state in
            if let entry = state.entries[key], entry.stamp == stamp, let task = entry.task {
                _ = Self.use(key, in: &state, protecting: protectedMost)
                return task
            }
            state.clock += 1
            return start(key, stamp: stamp, compute, in: &state)
        }
        return try await task.value
    }

    /// Starts computing the result for `key` at `stamp` and records it as being computed;
    /// the task keeps its value when done (and rests the key when it was slow), or forgets
    /// the entry when it failed.
    private func start(
        _ key: String,
        stamp: Int64,
        _ compute: @escaping @Sendable () async throws -> Value,
        in state: inout State
    ) -> Task<Value, any Error> {
        let task = Task {
            let start = ContinuousClock.now
            do {
                let value = try await compute()
                self.finish(key, stamp: stamp, value, after: ContinuousClock.now - start)
                return value
            } catch {
                self.state.withLock { state in
                    if let entry = state.entries[key], entry.stamp == stamp { state.entries[key] = nil }
                }
                throw error
            }
        }
        let old = state.entries[key]
        makeRoom(for: key, in: &state)
        state.entries[key] = Entry(
            stamp: stamp,
            task: task,
            value: nil,
            used: state.clock,
            protected: old != nil,
            restsUntil: old?.restsUntil
        )
        if old != nil { Self.demote(in: &state, protecting: protectedMost) }
        return task
    }

    /// The most keys kept protected: four fifths of the capacity.
    private var protectedMost: Int { capacity - max(1, capacity / 5) }

    /// Marks `key` (kept) as used now and protected; answers its value.
    private static func use(_ key: String, in state: inout State, protecting most: Int) -> Value? {
        guard var entry = state.entries[key] else { return nil }
        state.clock += 1
        entry.used = state.clock
        let promoted = !entry.protected
        entry.protected = true
        state.entries[key] = entry
        if promoted { demote(in: &state, protecting: most) }
        return entry.value
    }

    /// Puts the protected key used longest ago back on probation while more than `most`
    /// are protected.
    private static func demote(in state: inout State, protecting most: Int) {
        let protected = state.entries.filter(\.value.protected)
        guard protected.count > most, let oldest = protected.min(by: { $0.value.used < $1.value.used })?.key else {
            return
        }
        state.entries[oldest]?.protected = false
    }

    /// Whether the result for `key` at `stamp` is being computed.
    public func isComputing(_ key: String, at stamp: Int64) -> Bool {
        state.withLock { state in
            guard let entry = state.entries[key] else { return false }
            return entry.stamp == stamp && entry.task != nil && entry.value == nil
        }
    }

    /// Whether a result for `key` is being computed (at any stamp).
    public func isComputing(_ key: String) -> Bool {
        state.withLock { state in
            guard let entry = state.entries[key] else { return false }
            return entry.task != nil && entry.value == nil
        }
    }

    /// Starts computing the result for `key` at `stamp` in a task of its own, unless it is
    /// kept or being computed at that stamp, or one for `key` is being computed at another
    /// (a later call starts it once that one ended): a caller that need not wait for the
    /// result answers another way meanwhile, and at most one computation per key runs.
    /// A failed computation is not kept.
    public func refresh(_ key: String, stamp: Int64, compute: @escaping @Sendable () async throws -> Value) {
        state.withLock { state in
            if let entry = state.entries[key] {
                if let rests = entry.restsUntil, ContinuousClock.now < rests { return }
                if entry.stamp == stamp || (entry.task != nil && entry.value == nil) { return }
            }
            state.clock += 1
            _ = start(key, stamp: stamp, compute, in: &state)
        }
    }

    /// Keeps `value` for `key` at `stamp` (a result carried forward by its caller, such as
    /// an outline over logged writes) unless one is kept or being computed at a later stamp,
    /// or kept at that one; one being computed at that stamp answers with it meanwhile.
    public func keep(_ key: String, stamp: Int64, _ value: Value) {
        state.withLock { state in
            if let entry = state.entries[key] {
                if entry.stamp > stamp || (entry.stamp == stamp && entry.value != nil) { return }
                if entry.stamp == stamp {
                    state.entries[key]?.value = value
                    return
                }
            }
            state.clock += 1
            makeRoom(for: key, in: &state)
            let old = state.entries[key]
            state.entries[key] = Entry(
                stamp: stamp,
                task: nil,
                value: value,
                used: state.clock,
                protected: old?.protected ?? false,
                restsUntil: old?.restsUntil
            )
        }
    }

    /// Keeps the value a computation at `stamp` made in `length`, and rests `key` if it was
    /// slow.
    private func finish(_ key: String, stamp: Int64, _ value: Value, after length: Duration) {
        let until = length >= slowComputation ? ContinuousClock.now + length * restFactor : nil
        state.withLock { state in
            guard state.entries[key]?.stamp == stamp else { return }
            state.entries[key]?.value = value
            if let until { state.entries[key]?.restsUntil = until }
        }
    }

    /// Drops a key when `key` is new and the store is full: a slice's key (a binding with
    /// `#`: one per parameter value or caller, as many as clients make up) before a view's
    /// own (as many as the config has), so that a client asking for new slices over and
    /// over never drops what every client's views use; of those, one on probation before a
    /// protected one; then the one used longest ago.
    private func makeRoom(for key: String, in state: inout State) {
        guard state.entries[key] == nil, state.entries.count >= capacity else { return }
        let slices = state.entries.filter { $0.key.contains("#") }
        let kind = slices.isEmpty ? state.entries : slices
        let probation = kind.filter { !$0.value.protected }
        let candidates = probation.isEmpty ? kind : probation
        if let oldest = candidates.min(by: { $0.value.used < $1.value.used })?.key {
            state.entries[oldest] = nil
        }
    }

    /// Carries every result kept at stamp `old` over to stamp `new`, as `derive` makes it
    /// from the old one (a write whose effect on the result is known, so the result at the
    /// new stamp need not be computed again). A result `derive` answers nil for is dropped,
    /// and one computed meanwhile at another stamp is left alone.
    public func advance(from old: Int64, to new: Int64, _ derive: (_ key: String, Value) -> Value?) {
        guard old != new else { return }
        let olds: [(key: String, value: Value)] = state.withLock { state in
            state.entries.compactMap { key, entry in
                guard entry.stamp == old, let value = entry.value else { return nil }
                return (key, value)
            }
        }
        // Derived outside the lock: readers wait on it only for the swap.
        let derived = olds.map { ($0.key, derive($0.key, $0.value)) }
        state.withLock { state in
            for (key, value) in derived {
                guard let entry = state.entries[key], entry.stamp == old else { continue }
                state.entries[key] = value.map {
                    Entry(
                        stamp: new,
                        task: nil,
                        value: $0,
                        used: entry.used,
                        protected: entry.protected,
                        restsUntil: entry.restsUntil
                    )
                }
            }
        }
    }
}
