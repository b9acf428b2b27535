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
/// A slice's key asked for by one client alone (``ReadOrigin``) counts against that
/// client's share, a quarter of the capacity: a client past it drops its own key used
/// longest ago, so one client asking for new slices, once or twice each, never drops the
/// keys of the others. A key another client asks for too is no one's.
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
        /// The client that alone asked for the key (``ReadOrigin``), whose share it counts
        /// against; nil for a view's own key, or one asked for by several clients.
        var owner: String?

        /// Whether the key's result is being computed, none kept yet.
        var isComputing: Bool { task != nil && value == nil }
    }

    private struct State: Sendable {
        var entries: [String: Entry] = [:]
        var clock: UInt64 = 0
        /// How many computations each client's requests started in the background
        /// (``refresh(_:stamp:compute:)``) are running, by its tag (``ReadOrigin``).
        var background: [String: Int] = [:]
    }

    /// The most computations one client's requests run in the background at once: each
    /// is a pass over a view or slice that goes on after the request has answered, outside
    /// the client's share of requests in flight.
    public static var backgroundPerClient: Int { 2 }

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
            return Self.use(key, in: &state, protecting: protectedMost, by: ReadOrigin.client)
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
            return Self.use(key, in: &state, protecting: protectedMost, by: ReadOrigin.client)
        }
        if let kept { return kept }
        let task: Task<Value, any Error> = state.withLock { state in
            if let entry = state.entries[key], entry.stamp == stamp, let task = entry.task {
                _ = Self.use(key, in: &state, protecting: protectedMost, by: ReadOrigin.client)
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
        inBackgroundFor runner: String? = nil,
        in state: inout State
    ) -> Task<Value, any Error> {
        let task = Task {
            defer {
                if let runner {
                    self.state.withLock { state in
                        state.background[runner, default: 1] -= 1
                        if state.background[runner] == 0 { state.background[runner] = nil }
                    }
                }
            }
            let start = ContinuousClock.now
            do {
                // Every waiter's, so bounded by the store's timeout, not by what is left of
                // the request that started it (``ReadTime``): one that had spent its time
                // waiting for a replica failed the computation for all of them.
                let value = try await ReadTime.shared(compute)
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
        let asker = ReadOrigin.client
        makeRoom(for: key, by: asker, in: &state)
        state.entries[key] = Entry(
            stamp: stamp,
            task: task,
            value: nil,
            used: state.clock,
            protected: old != nil,
            restsUntil: old?.restsUntil,
            owner: Self.owner(of: key, kept: old, askedBy: asker)
        )
        if old != nil { Self.demote(in: &state, protecting: protectedMost) }
        return task
    }

    /// The most keys kept protected: four fifths of the capacity.
    private var protectedMost: Int { capacity - max(1, capacity / 5) }

    /// The most keys of slices one client alone asked for: a quarter of the capacity.
    private var share: Int { max(1, capacity / 4) }

    /// The client whose share `key` counts against once `asker` asked for it: `asker` for
    /// a slice's new key, or one only `asker` asked for before; no one's for a view's own
    /// key (as many as the config has), or once a second client asked for it. A read the
    /// service makes itself (no asker) leaves it as it was.
    private static func owner(of key: String, kept old: Entry?, askedBy asker: String?) -> String? {
        guard let asker else { return old?.owner }
        guard let old else { return key.contains("#") ? asker : nil }
        return old.owner == asker ? asker : nil
    }

    /// Marks `key` (kept) as used now, by `asker`, and protected; answers its value.
    private static func use(_ key: String, in state: inout State, protecting most: Int, by asker: String?) -> Value? {
        guard var entry = state.entries[key] else { return nil }
        state.clock += 1
        entry.used = state.clock
        entry.owner = owner(of: key, kept: entry, askedBy: asker)
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
            return entry.stamp == stamp && entry.isComputing
        }
    }

    /// Whether a result for `key` is being computed (at any stamp).
    public func isComputing(_ key: String) -> Bool {
        state.withLock { state in
            guard let entry = state.entries[key] else { return false }
            return entry.isComputing
        }
    }

    /// Starts computing the result for `key` at `stamp` in a task of its own, unless it is
    /// kept or being computed at that stamp, or one for `key` is being computed at another
    /// (a later call starts it once that one ended): a caller that need not wait for the
    /// result answers another way meanwhile, and at most one computation per key runs.
    /// Nor while the client asking (``ReadOrigin``) has ``backgroundPerClient`` running.
    /// A failed computation is not kept.
    public func refresh(_ key: String, stamp: Int64, compute: @escaping @Sendable () async throws -> Value) {
        let asker = ReadOrigin.client
        state.withLock { state in
            if let entry = state.entries[key] {
                if let rests = entry.restsUntil, ContinuousClock.now < rests { return }
                if entry.stamp == stamp || entry.isComputing { return }
            }
            if let asker {
                guard state.background[asker, default: 0] < Self.backgroundPerClient else { return }
                state.background[asker, default: 0] += 1
            }
            state.clock += 1
            _ = start(key, stamp: stamp, compute, inBackgroundFor: asker, in: &state)
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
            let asker = ReadOrigin.client
            makeRoom(for: key, by: asker, in: &state)
            let old = state.entries[key]
            state.entries[key] = Entry(
                stamp: stamp,
                task: nil,
                value: value,
                used: state.clock,
                protected: old?.protected ?? false,
                restsUntil: old?.restsUntil,
                owner: Self.owner(of: key, kept: old, askedBy: asker)
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

    /// Drops a key when `key` is new and `asker` has its whole share: the one of its own
    /// it used longest ago. Otherwise when the store is full: a slice's key (a binding with
    /// `#`: one per parameter value or caller, as many as clients make up) before a view's
    /// own (as many as the config has), so that a client asking for new slices over and
    /// over never drops what every client's views use; of those, one on probation before a
    /// protected one; then the one used longest ago. Never one being computed: its pass
    /// runs on anyway, and dropping its result would let the key's next request start a
    /// second (the store holds more keys meanwhile).
    private func makeRoom(for key: String, by asker: String?, in state: inout State) {
        guard state.entries[key] == nil else { return }
        if let asker {
            let own = state.entries.filter { $0.value.owner == asker }
            if own.count >= share,
                let oldest = own.filter({ !$0.value.isComputing }).min(by: { $0.value.used < $1.value.used })?.key
            {
                state.entries[oldest] = nil
                return
            }
        }
        guard state.entries.count >= capacity else { return }
        let idle = state.entries.filter { !$0.value.isComputing }
        let slices = idle.filter { $0.key.contains("#") }
        let kind = slices.isEmpty ? idle : slices
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
                        restsUntil: entry.restsUntil,
                        owner: entry.owner
                    )
                }
            }
        }
    }
}
