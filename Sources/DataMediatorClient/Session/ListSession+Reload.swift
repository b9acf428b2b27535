import Foundation

/// Reloading what the session holds, at a version never older than it held where a replica
/// allows.
extension ListSession {
    /// Reloads what the session held: from the first page (or the page that starts at the
    /// first loaded item when the session was not at the start), then the pages after it while
    /// they stay at the first one's version, until it holds `extent` items again (as many
    /// as before, by default, or as the reader paged to when a write cut the last reload
    /// short: ``wantedItems``), so a list that can only say `reload` (a list over a query)
    /// is not cut back to one page by every write, nor by a burst of them.
    ///
    /// What the session holds changes only once every page is read: a reload that fails
    /// (or is cancelled) on a later page leaves the session as it was, at its version, so
    /// the changes it reads next apply to what they were written against. The first page is
    /// read again a while when older than what is held or than `floor` (the version of the
    /// `reload` event that asked for it).
    func reload(extent: Int? = nil, reaching floor: Int64 = 0) async throws {
        statistics.reloads += 1
        let extent = max(extent ?? loaded.itemCount, wantedItems)
        var start: PageBody?
        let held = loaded.sections.flatMap(\.items)
        if started, loaded.prev != nil, !held.isEmpty {
            // A page around an item holds items before it (`(limit - 1) / 2`): it is read
            // around the held item that far below the first, so that it starts where the
            // session did, not half a page higher (each reload of a scrolled list over a
            // query would move it up, and lose as much at its bottom).
            let lead = (servedLimit ?? configuration.limit).map { max($0 - 1, 0) / 2 } ?? 0
            // An anchor gone meanwhile (the session has not read its delete: after a `410`,
            // say) is `404`: the held items below it are tried, then the top.
            let first = min(lead, held.count - 1)
            for anchor in held[first..<min(first + 4, held.count)] where start == nil {
                do {
                    start = try await readPage([("around", anchor.id)], notOlderThan: max(version, floor))
                } catch let error as ListClientError where error.status == 404 {
                    continue
                }
            }
        }
        // Read again a while when older than what is held (a replica behind the one read
        // before), then taken as it is: a refresh does not fail on a replica's lag.
        if start == nil { start = try await readPage([], notOlderThan: max(started ? version : 0, floor)) }
        guard let start else { return }
        var fresh = loaded
        fresh.replace(with: start)
        let at = start.version
        var cut = false
        while fresh.itemCount < extent, let cursor = fresh.next {
            let page = try await readPage([("cursor", cursor)])
            // A write came between two pages: what is read is whole at `at`; stop there.
            guard page.version == at else {
                cut = true
                break
            }
            let held = fresh.itemCount
            fresh.append(page)
            // A page that adds nothing (a broken server's) would be read for ever.
            guard fresh.itemCount > held else { break }
        }
        wantedItems = cut ? extent : fresh.itemCount
        // What the stream that follows is past: the version held, or the `reload` event's.
        let before = max(started ? version : 0, floor)
        loaded = fresh
        version = at
        appliedAtVersion = nil
        started = true
        // Taken older than that (every replica asked lags): the changes from its version
        // are read and applied, so that those the stream went past are not lost (it goes on
        // after them, and would never send them).
        if at < before {
            // Set, never cleared here: a second reload that lags compares with the version
            // the first went back to, not with the stream's place (the stream's reopening
            // clears it).
            defer { if version < before { resumesBehindStream = true } }
            do {
                try await applyChanges(since: at, reaching: before)
            } catch {
                try await publish()
                throw error
            }
        }
        try await publish()
    }

    /// Applies the changes after `since`, the session's version, read again a while when
    /// older than `floor`; a `reload` among them or a history gone leaves the session as
    /// it is (it reloaded just now).
    private func applyChanges(since: Int64, reaching floor: Int64) async throws {
        let changes: [ListChange]
        let latest: Int64
        do {
            (changes, latest) = try await readChanges(since: since, reaching: floor)
        } catch let error as ListClientError where error.code == .historyGone {
            return
        }
        guard !changes.contains(where: { $0.op == .reload }) else { return }
        for change in changes { applyOne(change) }
        holdAll(latest)
    }
}
