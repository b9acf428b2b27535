import Foundation

extension ListSession {
    /// Fetches `/changes` since the session's version and applies them in version order;
    /// reloads when the history is gone or a change says `reload`. Publishes one update
    /// for all of them.
    public func catchUp() async throws {
        await acquire()
        defer { release() }
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
    /// A stream that ends or fails is opened again after
    /// ``ListSessionConfiguration/reconnectDelay`` with `Last-Event-ID` set to the session's
    /// version (the one before, while a version's changes may be only partly applied), so
    /// no change is lost or applied twice. `event: reload` and a `410` reload the
    /// session (see ``refresh()``). Loads the first page first when nothing is loaded.
    ///
    /// - Throws: ``ListClientError`` when the server refuses the stream for good (a `4xx`
    ///   other than `408`, `410` and `429`).
    public func follow() async throws {
        var first = true
        while !Task.isCancelled {
            if !started { try await loadFirstPage() }
            if !first { statistics.reconnects += 1 }
            first = false
            var headers = configuration.headers
            headers["Last-Event-ID"] = String(resumeVersion)
            let events = transport.events(
                path: configuration.path("/events"),
                query: configuration.query(paging: false),
                headers: headers
            )
            do {
                for try await event in events { try await handle(event) }
            } catch let error as ListClientError where error.code == .historyGone {
                try await refresh()
                continue
            } catch let error as ListClientError where error.code == .status {
                if let status = error.status, (400..<500).contains(status), ![408, 429].contains(status) {
                    throw error
                }
            } catch {
                // The connection failed: open it again after the delay.
            }
            do {
                try await Task.sleep(for: configuration.reconnectDelay)
            } catch {
                return
            }
        }
    }

    /// Applies one event of the stream.
    private func handle(_ event: ServerSentEvent) async throws {
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
            applyOne(change)
            try await publish()
        case "reload":
            try await refresh()
        default:
            // `shutdown` (the stream ends; we reconnect), `message`, and types not known yet.
            break
        }
    }
}
