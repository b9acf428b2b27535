import Foundation

/// One list screen's data: the loaded part of one list, view and parameter set, kept
/// current, with every change published as a batch update.
///
/// A session loads the first page (``loadFirstPage()``), more pages (``loadMore()``),
/// earlier pages (``loadEarlier()``) or the page around an item (``open(around:)``); it
/// keeps the loaded sections and items by id, merging a section that a page boundary cut;
/// and it applies `/changes` (``catchUp()``) and `/events` (``follow()``) in version order,
/// each version once, reloading when the server's history is gone (`410`) or a change says
/// `reload`. Items past the last loaded one (or before the first) are not held: a change
/// that places an item there is left for the page that will show it.
///
/// Every change of what it holds is published on ``updates`` as one ``ListUpdate``: the
/// batch from the snapshot published before, and the new snapshot. Operations run one at a
/// time: a page loaded while events arrive is merged at its version, the events before it
/// applied first and those after it next.
public actor ListSession {
    /// Which list, view and parameters, and how it pages.
    public nonisolated let configuration: ListSessionConfiguration
    /// The updates, one per change of the snapshot, in order, for one reader: held until
    /// read (a reader far behind gets the oldest merged; see ``ListUpdates``); they end
    /// with ``finish()``.
    public nonisolated let updates: ListUpdates
    /// What the session holds now.
    public private(set) var snapshot: ListSnapshot
    /// What the session did so far.
    public internal(set) var statistics = ListSessionStatistics()

    let transport: any ListTransport
    var loaded: LoadedList
    /// The version every applied change and loaded page is current at.
    var version: Int64 = 0
    /// The changes of ``version`` applied one by one, while others of that version may
    /// still come (a composite's one write is several changes at one version); nil when
    /// the session holds all of ``version`` (a page or a `/changes` answer at it).
    var appliedAtVersion: Set<ListChange>?
    var started = false
    /// How many items the reader has paged to: a reload reads as many again, also after a
    /// reload that a write cut short (which holds fewer until the next one).
    var wantedItems = 0
    /// The page size the server used for the last page read (it clamps what is asked, and
    /// chooses it when the configuration names none).
    var servedLimit: Int?
    /// Until when section titles are not looked up, after a lookup the server did not
    /// answer (``resolveTitles()``); nil when they may be.
    var titlesPausedUntil: ContinuousClock.Instant?
    /// The last page load the server refused with a wait (`Retry-After`), and until when:
    /// ``loadMore()`` and ``loadEarlier()`` throw it again till then (``pacingPages(_:)``).
    var pagesRefused: (error: ListClientError, until: ContinuousClock.Instant)?
    /// Whether a reload or a page put in place of what was held ended at an older version
    /// than the session held before it (every replica it read lagged): ``follow()`` opens
    /// its stream again from there, applying no event of the open one meanwhile, since
    /// that one is past the changes between and would never send them.
    var resumesBehindStream = false
    private var busy = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// Creates a session that talks to the server through `transport`; it loads nothing yet.
    public init(configuration: ListSessionConfiguration, transport: any ListTransport) {
        self.configuration = configuration
        self.transport = transport
        snapshot = .empty(list: configuration.list)
        updates = ListUpdates(from: snapshot)
        loaded = LoadedList(list: configuration.list)
    }

    /// Creates a session for the server at `baseURL`, through ``URLSessionTransport``.
    public init(baseURL: URL, configuration: ListSessionConfiguration) {
        self.init(configuration: configuration, transport: URLSessionTransport(baseURL: baseURL))
    }

    /// Loads the first page, replacing whatever the session held.
    ///
    /// - Throws: ``ListClientError`` when the server cannot be reached or refuses.
    public func loadFirstPage() async throws {
        await acquire()
        defer { release() }
        try await replace(with: readPage([]))
    }

    /// Loads the page after the last loaded item and appends it; loads the first page when
    /// nothing is loaded yet. Returns false, loading nothing, when the end is loaded. A
    /// cursor the server refuses (`bad-cursor`, `cursor-mismatch`) reloads the session.
    @discardableResult
    public func loadMore() async throws -> Bool {
        await acquire()
        defer { release() }
        guard started else {
            try await pacingPages { try await replace(with: readPage([])) }
            return true
        }
        guard let cursor = loaded.next else { return false }
        try await pacingPages {
            do {
                try await merge(("cursor", cursor), prepending: false)
            } catch let error as ListClientError where error.refusedCursor {
                // The server no longer takes the cursor (its secret changed, say): what was
                // held is read again, then the page asked for, by the new cursors.
                try await reload()
                if let fresh = loaded.next { try await merge(("cursor", fresh), prepending: false) }
            }
        }
        return true
    }

    /// Loads the page before the first loaded item and prepends it. Returns false, loading
    /// nothing, when the start is loaded (or nothing is).
    @discardableResult
    public func loadEarlier() async throws -> Bool {
        await acquire()
        defer { release() }
        guard started, let cursor = loaded.prev else { return false }
        try await pacingPages {
            do {
                if let anchor = loaded.reanchor {
                    try await readAbove(around: anchor)
                } else {
                    try await merge(("cursor", cursor), prepending: true)
                }
            } catch let error as ListClientError where error.refusedCursor {
                try await reload()
                if let fresh = loaded.prev { try await merge(("cursor", fresh), prepending: true) }
            }
        }
        return true
    }

    /// Loads the page around the item `id` (the item near its middle), replacing whatever
    /// the session held; from there ``loadMore()`` and ``loadEarlier()`` page both ways.
    ///
    /// A `404` is read again a while when the view's sections say the replica that answered
    /// is older than what the session read (it may not hold the item yet).
    ///
    /// - Throws: ``ListClientError`` with status `404` when the view has no such item.
    public func open(around id: String) async throws {
        await acquire()
        defer { release() }
        try await replace(with: readUnlessLagging(id) { try await readPage([("around", id)]) })
    }

    /// Loads the page a cursor of this list and view leads to (a composite's `more` cell
    /// holds one, with the `list` and `view` to open it in), replacing whatever the session
    /// held; from there ``loadMore()`` and ``loadEarlier()`` page both ways.
    ///
    /// - Throws: ``ListClientError`` with the problem `bad-cursor` or `cursor-mismatch` when
    ///   the cursor is not one of this list and view.
    public func open(cursor: String) async throws {
        await acquire()
        defer { release() }
        try await replace(with: readPage([("cursor", cursor)]))
    }

    /// Reloads: the first page, or the page around the first loaded item when the session
    /// was not at the start; replaces whatever the session held.
    public func refresh() async throws {
        await acquire()
        defer { release() }
        try await reload()
    }

    /// Ends ``updates``.
    public func finish() {
        updates.finish()
    }

    /// Holds `page` alone. A page older than the version held (read through a replica
    /// that lags the one read before) leaves a stream that ``follow()`` has open past the
    /// changes between: it is opened again from the page's version (``resumesBehindStream``).
    func replace(with page: PageBody) async throws {
        if started, page.version < version { resumesBehindStream = true }
        loaded.replace(with: page)
        wantedItems = loaded.itemCount
        version = page.version
        appliedAtVersion = nil
        started = true
        try await publish()
    }

    /// Reads a page at `cursor` and merges it at its version with the changes since the
    /// session's version: those up to the page's version first, the rest after it.
    ///
    /// A page read above around `anchor` that does not join the held items
    /// (``LoadedList/joins(_:at:)``: a change put the anchor at the top from further up) is
    /// not merged: the session reloads from where it stood, then reads the page above.
    private func merge(_ cursor: (String, String), prepending: Bool, anchor: String? = nil) async throws {
        // A page older than what is held (events ran ahead, or a replica behind the one
        // read before) is read again a while.
        let page = try await readPage([cursor], notOlderThan: version)
        guard page.version >= version else {
            // A replica's lag, not a broken server: the app may try again shortly.
            var behind = ListClientError(
                .behind,
                message: "the server answered version \(page.version), older than the \(version) held; try again"
            )
            behind.retryAfter = .seconds(1)
            throw behind
        }
        var changes: [ListChange] = []
        var latest = version
        if page.version > resumeVersion {
            do {
                (changes, latest) = try await readChanges(since: resumeVersion, reaching: page.version)
            } catch let error as ListClientError where error.code == .historyGone {
                return try await reload()
            }
        }
        // Changes that stop short of the page's version (read from a replica that stays
        // behind the page's) leave out some between: held at the page's version, the items
        // outside the page would miss them for good. What was held and the page are read
        // again at one version instead.
        if changes.contains(where: { $0.op == .reload }) || latest < page.version {
            // What was held and the page just read, again at one version.
            return try await reload(extent: loaded.itemCount + page.dataSections.reduce(0) { $0 + $1.items.count })
        }
        for change in changes where change.version <= page.version { applyOne(change) }
        if prepending, anchor == nil, let first = loaded.reanchor {
            // Those changes moved or took the top boundary item, from whose old place the
            // page was read: what they put between that place and the first held item lies
            // between the page and the held items, and no later page would read it. The
            // page is left out, and the one around the first held item read instead.
            for change in changes where change.version > page.version { applyOne(change) }
            holdAll(page.version)
            holdAll(latest)
            return try await readAbove(around: first)
        }
        if let anchor, !loaded.joins(page, at: anchor) {
            try await reload()
            if let fresh = loaded.prev { try await merge(("cursor", fresh), prepending: true) }
            return
        }
        if prepending { loaded.prepend(page) } else { loaded.append(page) }
        wantedItems = max(wantedItems, loaded.itemCount)
        holdAll(page.version)
        for change in changes where change.version > page.version { applyOne(change) }
        holdAll(latest)
        try await publish()
    }

    /// Reads the page above around `first` (``LoadedList/reanchor``), its rows held already
    /// staying where the page shows them and its `prev` going on. When that item went
    /// meanwhile, its change is read and the page read around the first held item then
    /// (read from the cursor, it would miss what changes put between the cursor's place and
    /// the held items); gone again, the view is read again from where it stood.
    private func readAbove(around first: String) async throws {
        do {
            return try await merge(("around", first), prepending: true, anchor: first)
        } catch let error as ListClientError where error.status == 404 {}
        try await catchUpHeld()
        if let next = loaded.reanchor {
            do {
                return try await merge(("around", next), prepending: true, anchor: next)
            } catch let error as ListClientError where error.status == 404 {}
            try await reload()
        }
        if let fresh = loaded.prev { try await merge(("cursor", fresh), prepending: true) }
    }

    /// The version after which changes are read (`/changes?since=`, `Last-Event-ID`): the
    /// one before ``version`` while that version may have more changes to come.
    var resumeVersion: Int64 { appliedAtVersion == nil ? version : version - 1 }

    /// Marks the session as holding all of `complete` (a page, or a `/changes` answer, at
    /// it) when that is not behind what it holds.
    func holdAll(_ complete: Int64) {
        guard complete >= version else { return }
        version = complete
        appliedAtVersion = nil
    }

    /// Applies one change unless it is applied already: one of an earlier version, or one
    /// of the session's version that it holds whole or that was applied before.
    func applyOne(_ change: ListChange) {
        if change.version > version {
            version = change.version
            appliedAtVersion = [change]
        } else if change.version < version || appliedAtVersion?.insert(change).inserted != true {
            statistics.changesSkipped += 1
            return
        }
        loaded.apply(change)
        statistics.changesApplied += 1
    }

    /// Names the sections changes created, then publishes the snapshot if it changed.
    func publish() async throws {
        try await resolveTitles()
        let next = ListSnapshot(
            list: configuration.list,
            view: loaded.view,
            version: version,
            sections: loaded.sections,
            nextCursor: loaded.next,
            previousCursor: loaded.prev
        )
        let previous = snapshot
        snapshot = next
        if next.sections != previous.sections || next.nextCursor != previous.nextCursor
            || next.previousCursor != previous.previousCursor
        {
            updates.yield(ListUpdate(batch: BatchUpdate(from: previous, to: next), snapshot: next))
        }
    }

    /// Waits until no other operation of the session runs, and holds it until ``release()``.
    func acquire() async {
        if busy {
            await withCheckedContinuation { waiters.append($0) }
        } else {
            busy = true
        }
    }

    /// Lets the next waiting operation run.
    func release() {
        if waiters.isEmpty {
            busy = false
        } else {
            waiters.removeFirst().resume()
        }
    }
}
