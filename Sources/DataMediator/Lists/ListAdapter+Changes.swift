/// What changed in a list after a version: item by item from its change log, or one
/// `reload` for a list without one.
extension ListAdapter {
    /// Page sizes of a changes answer.
    public static let changeLimits = PageLimits(defaultLimit: 100, maximumLimit: 1000)

    /// What changed in a view after version `since`, at most `limit` changes, with the
    /// `since` that continues the answer when more follow.
    ///
    /// - Throws: `unknownView`; `badRequest` for a missing or malformed `since`;
    ///   `badLimit`; `historyGone` when `since` is older than the kept history or newer
    ///   than the list's version.
    public func changes(
        view name: String?,
        since rawSince: String?,
        limit rawLimit: String?,
        slice: SliceRequest = .whole
    ) async throws -> ChangeSet {
        let view = try definition.view(named: name, slice: slice)
        let since = try Self.version(rawSince)
        let limit = try Self.changeLimits.resolve(rawLimit)
        return try await changes(of: view, since: since, limit: limit)
    }

    /// ``changes(of:since:limit:)`` for a live stream: one read shared by the streams that
    /// ask the same in the same moment (``SharedChangeReads``).
    public func streamChanges(of view: View, since: Int64, limit: Int) async throws -> ChangeSet {
        try await streamReads.changes(
            binding: view.binding,
            since: since,
            limit: limit,
            generation: notifier.generation
        ) { try await changes(of: view, since: since, limit: limit) }
    }

    /// What changed in `view` after version `since`: at most `limit` changes. A scoped
    /// list's changes are logged per caller's slice; its whole view (an operator's read)
    /// answers one `reload` when the list moved past `since`, as a list without a log does.
    ///
    /// A `since` newer than the reads (a read replica behind its primary, where a client's
    /// version came from a write or another replica) is not a reset: the answer waits for
    /// the reads to reach it (``DataProvider/catchUp(to:)``): `unavailable` when they do
    /// not in time, and `historyGone` only when `since` is newer than the source itself.
    public func changes(of view: View, since: Int64, limit: Int) async throws -> ChangeSet {
        do {
            return try await changesRead(of: view, since: since, limit: limit)
        } catch let error as DataMediatorError where error.code == .historyGone {
            switch try await provider.catchUp(to: since) {
            case .notBehind, .independent: throw error
            case .caughtUp: return try await changesRead(of: view, since: since, limit: limit)
            case .stillBehind:
                throw DataMediatorError(
                    .unavailable,
                    "The store's read replica has not replayed version \(since) yet; retry shortly."
                )
            }
        }
    }

    /// ``changes(of:since:limit:)``, read once.
    private func changesRead(of view: View, since: Int64, limit: Int) async throws -> ChangeSet {
        let wholeOfScoped = definition.scope.map { view.slice[$0.field] == nil } ?? false
        guard let changeLog, !wholeOfScoped else {
            let version = try await currentVersion()
            try DataMediatorError.checkHistory(since: since, floor: 0, version: version)
            let entries =
                since < version
                ? [ChangeSet.Entry(operation: .reload, version: version, id: "", cell: nil, placement: nil)] : []
            return ChangeSet(
                list: definition.name,
                view: view.name,
                since: since,
                version: version,
                entries: entries,
                next: nil
            )
        }
        let window = try await changeLog.changes(of: view, since: since, limit: limit + 1)
        var kept = window.changes.prefix(limit)
        // One write may change a view in several places (a composite showing an item
        // twice): its changes share a version, and `next` continues after a version, so
        // an answer never ends inside one. It ends before that write's changes, or holds
        // them all when they alone are more than `limit`.
        if window.changes.count > limit, let last = kept.last, window.changes[limit].version == last.version {
            let before = kept.prefix { $0.version != last.version }
            kept = before.isEmpty ? window.changes.prefix { $0.version == last.version } : before
        }
        let presenter = presenter(for: view)
        let entries = kept.map { change in
            ChangeSet.Entry(
                operation: change.operation,
                version: change.version,
                id: change.id,
                cell: change.operation == .delete ? nil : change.item.map { presenter.cell(for: $0) },
                placement: change.placement
            )
        }
        return ChangeSet(
            list: definition.name,
            view: view.name,
            since: since,
            version: window.version,
            entries: entries,
            next: window.changes.count > kept.count || window.isCut ? kept.last?.version : nil
        )
    }

    /// Waits until the list's reads reach `version`, one its source reached (a read
    /// replica behind its primary): ``DataProvider/catchUp(to:)``.
    public func catchUp(to version: Int64) async throws -> CatchUp {
        try await provider.catchUp(to: version)
    }

    /// The list's version now, as a page would report it.
    public func currentVersion() async throws -> Int64 {
        try await provider.currentVersion()
    }

    /// A version parameter (`since`, `Last-Event-ID`): a whole number, at least 0. One past
    /// 64 bits is the largest version: newer than any list's, so its answer is `410` (a
    /// stream's `reload`), as for any version the list has not reached.
    ///
    /// - Throws: `badRequest` when it is missing, empty or not such a number.
    public static func version(_ raw: String?, name: String = "since") throws(DataMediatorError) -> Int64 {
        guard let raw else {
            throw DataMediatorError(
                .badRequest,
                "'\(name)' is required: the version of the pages you hold (a page's 'version')."
            )
        }
        guard !raw.isEmpty, raw.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw DataMediatorError(
                .badRequest,
                "'\(name)' must be a version: a whole number, at least 0; got '\(raw)'."
            )
        }
        return Int64(raw) ?? .max
    }
}
