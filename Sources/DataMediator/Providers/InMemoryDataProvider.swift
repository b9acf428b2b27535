import Synchronization

/// A writable list held in memory: provider, section info, writer and change log in one.
///
/// Every read sees one immutable snapshot (an ``ArrayDataProvider``); every write builds
/// the next snapshot under a lock, so reads never wait for writes and always agree with
/// their version. A write re-sorts the list (O(n log n)): meant for lists of thousands of
/// items, tests, and as the reference the stores are checked against.
public final class InMemoryDataProvider: DataProvider, SectionInfoProvider, ItemWriter, ChangeLog {
    private struct LoggedWrite: Sendable {
        let version: Int64
        let id: String
        let item: Item?
        /// The item before the write.
        let old: Item?
        let changes: [String: ViewChange]
    }

    private struct Remembered: Sendable {
        let fingerprint: String
        let result: WriteResult
        let at: ContinuousClock.Instant
    }

    private struct State: Sendable {
        var items: [ExactText: Item]
        var snapshot: ArrayDataProvider
        var version: Int64
        var floor: Int64
        var log: [LoggedWrite] = []
        var keys: [ExactText: Remembered] = [:]
    }

    private let definition: ListDefinition
    private let recorder: ChangeRecorder
    private let layout: ItemLayout
    private let revisionField: String
    private let state: Mutex<State>

    /// Creates a store holding `items` of `definition`'s list at `version`.
    ///
    /// Items keep the fields `columns` names (the id and revision are added); records
    /// whose id repeats one seen before are dropped.
    public init(definition: ListDefinition, columns: [String], items: [Item] = [], version: Int64 = 0) {
        self.definition = definition
        self.recorder = ChangeRecorder(
            views: definition.views,
            idField: definition.idField,
            scopeField: definition.scope?.field
        )
        self.revisionField = definition.revisionField ?? "rev"
        var names = [definition.idField, revisionField]
        for column in columns where !names.contains(column) { names.append(column) }
        let layout = ItemLayout(names)
        self.layout = layout
        var byID: [ExactText: Item] = [:]
        for item in items where byID[ExactText(item[definition.idField].idString)] == nil {
            byID[ExactText(item[definition.idField].idString)] = Item(
                layout: layout,
                values: names.map { $0 == definition.revisionField && item[$0] == .null ? .integer(1) : item[$0] }
            )
        }
        let snapshot = ArrayDataProvider(
            items: Array(byID.values),
            idField: definition.idField,
            views: definition.views,
            scopeField: definition.scope?.field,
            version: version
        )
        state = Mutex(State(items: byID, snapshot: snapshot, version: version, floor: version))
    }

    // MARK: - Reads

    /// Up to `limit` items after (or from) `start`, from the current snapshot.
    public func window(of view: View, from start: Position?, inclusive: Bool, limit: Int) async throws -> Window {
        try await state.withLock(\.snapshot).window(of: view, from: start, inclusive: inclusive, limit: limit)
    }

    /// Up to `limit` items before (or at and before) `start`, nearest first, from the
    /// current snapshot.
    public func window(of view: View, before start: Position?, inclusive: Bool, limit: Int) async throws -> Window {
        try await state.withLock(\.snapshot).window(of: view, before: start, inclusive: inclusive, limit: limit)
    }

    /// The items on both sides of `start`, from one snapshot.
    public func window(
        of view: View,
        at start: Position,
        inclusive: Bool,
        before: Int,
        from: Int
    ) async throws -> AnchoredWindow {
        try await state.withLock(\.snapshot).window(
            of: view,
            at: start,
            inclusive: inclusive,
            before: before,
            from: from
        )
    }

    /// The items around the one with `id`, from the current snapshot.
    public func window(of view: View, around id: String, before: Int, from: Int) async throws -> AnchoredWindow? {
        try await state.withLock(\.snapshot).window(of: view, around: id, before: before, from: from)
    }

    /// The version of the last write.
    public func currentVersion() async throws -> Int64 {
        state.withLock(\.version)
    }

    /// ``CatchUp/notBehind``: a store of its own, whose reads see every write at once.
    public func catchUp(to version: Int64) async throws -> CatchUp { .notBehind }

    /// The item with `id` and its place in the view, from the current snapshot.
    public func locate(id: String, in view: View) async throws -> Location? {
        try await state.withLock(\.snapshot).locate(id: id, in: view)
    }

    /// The view's sections with their counts, from the current snapshot.
    public func sectionCounts(of view: View) async throws -> SectionCounts {
        try await state.withLock(\.snapshot).sectionCounts(of: view)
    }

    /// Up to `limit` changes of `view` after `since`.
    public func changes(of view: View, since: Int64, limit: Int) async throws -> ChangeWindow {
        try state.withLock { state throws(DataMediatorError) in
            try DataMediatorError.checkHistory(since: since, floor: state.floor, version: state.version)
            var changes: [Change] = []
            let start = state.log.partitionPoint { $0.version <= since }
            for write in state.log[start...] where changes.count < limit {
                guard let change = write.changes[view.binding] else { continue }
                changes.append(
                    Change(
                        operation: change.operation,
                        version: write.version,
                        id: write.id,
                        item: change.operation == .delete ? nil : write.item,
                        placement: change.placement,
                        old: change.operation == .insert ? nil : write.old
                    )
                )
            }
            return ChangeWindow(changes: changes, version: state.version)
        }
    }

    // MARK: - Writes

    /// Inserts an item; without an id it gets a random one.
    public func insert(
        id: String?,
        fields: [String: JSONValue],
        idempotency: IdempotencyKey?,
        precondition: VersionPrecondition?
    ) async throws
        -> WriteResult
    {
        try state.withLock { state in
            if let idempotency {
                let oldest = ContinuousClock.now - IdempotencyKey.retention
                state.keys = state.keys.filter { $0.value.at >= oldest }
                if let earlier = state.keys[ExactText(idempotency.storedKey)] {
                    guard earlier.fingerprint == idempotency.fingerprint else {
                        throw DataMediatorError(
                            .idempotencyKeyReused,
                            "The Idempotency-Key '\(idempotency.key)' was used with another body; use a new key for a new item."
                        )
                    }
                    let first = earlier.result
                    return WriteResult(item: first.item, version: first.version, created: true, replayed: true)
                }
            }
            try precondition?(state.version)
            let id = id ?? Hex.randomID()
            if state.items[ExactText(id)] != nil {
                throw DataMediatorError.idTaken(id)
            }
            let result = try write(id: id, fields: fields, revision: 1, in: &state)
            if let idempotency {
                state.keys[ExactText(idempotency.storedKey)] = Remembered(
                    fingerprint: idempotency.fingerprint,
                    result: result,
                    at: .now
                )
            }
            return result
        }
    }

    /// Replaces the item with `id` (its revision goes up by one) or creates it.
    public func replace(
        id: String,
        fields: [String: JSONValue],
        scope: WriteScope?,
        precondition: WritePrecondition?
    ) async throws -> WriteResult {
        try state.withLock { state in
            if let scope, let old = state.items[ExactText(id)], !scope.contains(old) { throw unknown(id) }
            try precondition?(state.items[ExactText(id)])
            let revision = state.items[ExactText(id)].map { Self.revision(of: $0, field: revisionField) + 1 } ?? 1
            return try write(id: id, fields: fields, revision: revision, in: &state)
        }
    }

    /// Merge-patches the fields of the item with `id`.
    public func patch(
        id: String,
        with patch: JSONValue,
        scope: WriteScope?,
        precondition: WritePrecondition?,
        check: @escaping @Sendable ([String: JSONValue]) throws -> Void
    ) async throws -> WriteResult {
        try state.withLock { state in
            guard let old = state.items[ExactText(id)], scope?.contains(old) ?? true else { throw unknown(id) }
            try precondition?(old)
            var stored = old.fields
            stored[definition.idField] = nil
            stored[revisionField] = nil
            let merged = WriteScope.merge(stored, with: patch, in: scope)
            try check(merged)
            return try write(
                id: id,
                fields: merged,
                revision: Self.revision(of: old, field: revisionField) + 1,
                in: &state
            )
        }
    }

    /// Deletes the item with `id`.
    public func delete(id: String, scope: WriteScope?, precondition: WritePrecondition?) async throws -> Int64 {
        try state.withLock { state in
            guard let old = state.items[ExactText(id)], scope?.contains(old) ?? true else { throw unknown(id) }
            try precondition?(old)
            return try commit(id: id, item: nil, in: &state)
        }
    }

    private func write(
        id: String,
        fields: [String: JSONValue],
        revision: Int64,
        in state: inout State
    ) throws
        -> WriteResult
    {
        let values = layout.names.map { name -> JSONValue in
            if name == definition.idField { return .string(id) }
            if name == revisionField { return .integer(revision) }
            return fields[name] ?? .null
        }
        let item = Item(layout: layout, values: values)
        let created = state.items[ExactText(id)] == nil
        let version = try commit(id: id, item: item, in: &state)
        return WriteResult(item: item, version: version, created: created)
    }

    /// Stores (or with nil removes) one item: the next snapshot, the version, the log.
    private func commit(id: String, item: Item?, in state: inout State) throws -> Int64 {
        let old = state.items[ExactText(id)]
        let before = try recorder.placements(of: old, withSectionAfter: false) { [snapshot = state.snapshot] in
            snapshot.items(before: $1, in: $0, limit: $2)
        }
        state.items[ExactText(id)] = item
        state.version += 1
        state.snapshot = state.snapshot.replacing(
            old,
            with: item,
            id: id,
            views: definition.views,
            scopeField: definition.scope?.field,
            version: state.version
        )
        let after = try recorder.placements(of: item, withSectionAfter: true) { [snapshot = state.snapshot] in
            snapshot.items(before: $1, in: $0, limit: $2)
        }
        state.log.append(
            LoggedWrite(
                version: state.version,
                id: id,
                item: item,
                old: old,
                changes: recorder.changes(old: before, new: after)
            )
        )
        let keepFrom = state.version - Int64(definition.history)
        if keepFrom > state.floor {
            state.log.removeFirst(state.log.partitionPoint { $0.version <= keepFrom })
            state.floor = keepFrom
        }
        return state.version
    }

    private func unknown(_ id: String) -> DataMediatorError {
        DataMediatorError(.unknownItem, "There is no item '\(id)' in list '\(definition.name)'.")
    }

    private static func revision(of item: Item, field: String) -> Int64 {
        if case .integer(let revision) = item[field] { return revision }
        return 1
    }
}

extension Array {
    /// The index of the first element for which `isBefore` is false, all elements before it
    /// being those for which it is true (the array is partitioned by it).
    func partitionPoint(_ isBefore: (Element) -> Bool) -> Int {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if isBefore(self[middle]) { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
