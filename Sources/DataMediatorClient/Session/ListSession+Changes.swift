import Foundation

extension ListSession {
    /// Fetches `/changes` since the session's version and applies them in version order;
    /// reloads when the history is gone or a change says `reload`. Publishes one update
    /// for all of them.
    public func catchUp() async throws {
        await acquire()
        defer { release() }
        try await catchUpHeld()
    }

    /// ``catchUp()`` within an operation that holds the session.
    func catchUpHeld() async throws {
        guard started else { return try await replace(with: readPage([])) }
        let changes: [ListChange]
        let latest: Int64
        do {
            (changes, latest) = try await readChanges(since: resumeVersion)
        } catch let error as ListClientError where error.code == .historyGone {
            return try await reload()
        }
        if changes.contains(where: { $0.op == .reload }) { return try await reload() }
        for change in changes { applyOne(change) }
        holdAll(latest)
        try await publish()
    }

    /// Applies changes the caller fetched (`/changes`, or events it reads itself) in
    /// version order, skipping versions already applied; a `reload` among them reloads.
    /// Publishes one update for all of them.
    public func apply(_ changes: [ListChange]) async throws {
        await acquire()
        defer { release() }
        if changes.contains(where: { $0.op == .reload && $0.version > version }) { return try await reload() }
        for change in changes.sorted(by: { $0.version < $1.version }) where change.op != .reload { applyOne(change) }
        try await publish()
    }

    /// Follows the view's live changes (`/events`) until the calling task is cancelled:
    /// applies each event as it comes and publishes it as one update.
    ///
    /// A stream that ends or fails is opened again with `Last-Event-ID` set to the session's
    /// version (the one before, while a version's changes may be only partly applied), so
    /// no change is lost or applied twice: after the stream's reconnection time (its last
    /// `retry:`, else ``ListSessionConfiguration/reconnectDelay``), twice as long after each failure in a row
    /// (a stream that only said `reload` counts as one; up to 32 times as long, with some jitter,
    /// so that clients cut off together do not come back together), and never sooner than
    /// the server's `Retry-After`. `event: reload`, a `410` and an event the session cannot
    /// read reload the session (see ``refresh()``). Loads the first page first when nothing
    /// is loaded.
    ///
    /// Loading the first page, ``ListSessionConfiguration/freshHeaders`` and a reload that
    /// fail are tried again the same way.
    ///
    /// - Throws: ``ListClientError`` when the server refuses the stream, a page or a reload
    ///   for good (a `4xx` other than `408`, `410` and `429`), or the configuration cannot
    ///   make a request (``ListClientError/Code/badConfiguration``).
    public func follow() async throws {
        var first = true
        var failures = 0
        // The server's `retry:` is the reconnection time from then on, across reconnections
        // (the WHATWG standard's EventSource keeps it the same way).
        var reconnection = configuration.reconnectDelay
        // Whether the last stream was opened again at once for being past the session's
        // place: a second time in a row (a replica that stays behind past a reload's
        // re-reads) waits as after a failure, so that followers do not loop on it.
        var reopenedAtOnce = false
        while !Task.isCancelled {
            if !first { statistics.reconnects += 1 }
            first = false
            // A stream that failed before it delivered a change counts towards the backoff;
            // one the server ended (a shutdown, its token's expiry) does not, unless all it
            // said was `reload` (a server that says so on every stream would otherwise be
            // reloaded from at every reconnection time, for ever).
            var delivered = false
            var reloaded = false
            var failed = false
            // The session went back behind the stream's place: opened again at once.
            var behindStream = false
            var retryAfter: Duration?
            do {
                // Loading the first page, asking for fresh headers and reloading fail as a
                // stream does (the network is down, the server busy): they are tried again
                // after the same wait, not ended for good.
                if !started { try await loadFirstPage() }
                var headers = try await requestHeaders()
                headers["Last-Event-ID"] = String(resumeVersion)
                // This stream starts from the version held: a reload before it (a refresh, a
                // `410`) left nothing for it to go past.
                resumesBehindStream = false
                let events = transport.events(
                    path: configuration.path("/events"),
                    query: try configuration.query(paging: false),
                    headers: headers
                )
                do {
                    for try await event in events {
                        if let retry = event.retry {
                            // Not shorter than a floor: a broken or hostile peer that sends
                            // `retry: 0` and ends each stream would be asked again at once,
                            // for ever.
                            reconnection = max(.milliseconds(retry), Self.shortestReconnection)
                            statistics.reconnectionTime = reconnection
                        }
                        // A notice that the reconnection time changed is no event.
                        guard !event.type.isEmpty else { continue }
                        let behind = try await handle(event)
                        if event.type == "reload" { reloaded = true } else { delivered = true }
                        // A reload or a page that every replica answered older than the
                        // stream's place (a refresh or an `open` while this stream ran):
                        // opened again from the version held, the stream sends the changes
                        // between, which this one, past them, never would.
                        if behind {
                            resumesBehindStream = false
                            behindStream = true
                            break
                        }
                    }
                } catch let error as ListClientError where error.code == .historyGone || error.code == .badAnswer {
                    // History gone, or an event that cannot be read (reading it again would
                    // fail again): reload, and follow on from there after the wait, longer
                    // each time in a row (a server that answers so every time is not asked
                    // again at once, for ever).
                    try await refresh()
                    failed = true
                }
            } catch is CancellationError {
                return
            } catch let error as ListClientError where error.code == .badConfiguration {
                // Nothing was sent, and nothing would be the next time.
                throw error
            } catch let error as ListClientError where error.code == .status {
                // A 401 with fresh headers at hand is a token that expired: open it again.
                let refreshed = error.status == 401 && configuration.freshHeaders != nil
                if let status = error.status, (400..<500).contains(status), ![408, 429].contains(status), !refreshed {
                    throw error
                }
                retryAfter = error.retryAfter
                failed = true
            } catch {
                // The connection failed: open it again after the delay.
                if Task.isCancelled { return }
                failed = true
            }
            if behindStream, !reopenedAtOnce {
                reopenedAtOnce = true
                continue
            }
            reopenedAtOnce = false
            failures = (failed || reloaded || behindStream) && !delivered ? failures + 1 : 0
            do {
                try await Task.sleep(
                    for: Self.reconnectDelay(reconnection, failures: failures, retryAfter: retryAfter)
                )
            } catch {
                return
            }
        }
    }

    /// The shortest reconnection time a stream's `retry:` sets.
    public static let shortestReconnection = Duration.milliseconds(100)

    /// How long to wait before opening a stream again: `base`, doubled for each failure in
    /// a row after the first (at most 32 times), with up to a quarter more at random; never
    /// less than the server's `Retry-After`.
    public static func reconnectDelay(_ base: Duration, failures: Int, retryAfter: Duration?) -> Duration {
        let backedOff = base * (1 << min(max(failures - 1, 0), 5))
        let jittered = backedOff + backedOff * Double.random(in: 0..<0.25)
        return max(jittered, retryAfter ?? .zero)
    }

    /// Applies one event of the stream, unless the session stands behind the stream's place
    /// (``resumesBehindStream``): then the change is left for the stream opened again from
    /// the session's version, which sends it after those between (applied now, it would
    /// move the session's version past them). Returns whether the session stands so.
    private func handle(_ event: ServerSentEvent) async throws -> Bool {
        switch event.type {
        case "insert", "update", "move", "delete":
            let change: ListChange
            do {
                change = try JSONDecoder().decode(ListChange.self, from: Data(event.data.utf8))
            } catch {
                throw ListClientError(.badAnswer, message: "event \(event.id): \(error)")
            }
            await acquire()
            defer { release() }
            if resumesBehindStream { return true }
            applyOne(change)
            try await publish()
        case "reload":
            // Its `id:` is the version it stands for (API.md: every event's `id:` is its
            // version). Pages the session read at that version or later show what it
            // stands for: a reload again (a burst of writes to a list over a query sends one
            // each) would read every held page for nothing. Otherwise the pages read again
            // must be at least that new: a replica that lags the stream's answers older
            // ones, and the stream, past that version, would not say reload again.
            let at = Int64(event.id)
            await acquire()
            defer { release() }
            if let at, started, at <= version {
                statistics.changesSkipped += 1
                return resumesBehindStream
            }
            try await reload(reaching: at ?? 0)
        default:
            // `shutdown` (the stream ends; we reconnect), `message`, and types not known yet.
            break
        }
        return resumesBehindStream
    }
}
