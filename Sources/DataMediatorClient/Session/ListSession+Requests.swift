import Foundation

extension ListSession {
    /// The headers of the next request: ``ListSessionConfiguration/headers``, and over them
    /// ``ListSessionConfiguration/freshHeaders``' answer; a fresh header replaces one of
    /// the same name in any case (HTTP names are case-insensitive: `authorization` and
    /// `Authorization` both kept would send either token).
    func requestHeaders() async throws -> [String: String] {
        guard let fresh = configuration.freshHeaders else { return configuration.headers }
        let answer = try await fresh()
        let replaced = Set(answer.keys.map { $0.lowercased() })
        return configuration.headers.filter { !replaced.contains($0.key.lowercased()) }.merging(answer) { $1 }
    }

    /// Reads a page of the view with `extra` query parameters (`cursor` or `around`).
    func readPage(_ extra: [(String, String)]) async throws -> PageBody {
        let answer = try await transport.get(
            path: configuration.path("/items"),
            query: try configuration.query(extra),
            headers: try await requestHeaders()
        )
        let page = try Self.decode(PageBody.self, answer, what: "page")
        // Every item appears once in a page (rule 1), and every section id once: held by
        // id, a repeat would make a snapshot whose counts and paths disagree.
        var items = Set<ExactID>()
        var sections = Set<ExactID>()
        for section in page.dataSections {
            guard sections.insert(ExactID(section.id)).inserted else {
                throw ListClientError(.badAnswer, message: "page: section '\(section.id)' comes twice")
            }
            for item in section.items where !items.insert(ExactID(item.id)).inserted {
                throw ListClientError(.badAnswer, message: "page: item '\(item.id)' comes twice")
            }
        }
        countPage()
        if let limit = page.limit, limit > 0 { servedLimit = limit }
        return page
    }

    /// Reads a page as ``readPage(_:)`` does, and reads it again while it is older than
    /// `floor`, up to 5 times after pauses of 50 ms doubling (1.55 s in all): behind a load
    /// balancer, a service replica reading a database replica that lags may answer older
    /// than what the session read before (the page's `version` says so). Answers the last
    /// page read, older or not.
    func readPage(_ extra: [(String, String)], notOlderThan floor: Int64) async throws -> PageBody {
        try await readAgain({ try await self.readPage(extra) }, while: { $0.version < floor })
    }

    /// What `read` answers, read again while `older` says it is older than wanted, up to 5
    /// times after pauses of 50 ms doubling (1.55 s in all); the last read, older or not.
    /// The one rule of the reads a lagging replica may answer (pages, changes, sections).
    func readAgain<Answer>(
        _ read: () async throws -> Answer,
        while older: (Answer) -> Bool
    ) async throws -> Answer {
        var answer = try await read()
        for pause in Self.readAgainPauses where older(answer) {
            try await Task.sleep(for: pause)
            answer = try await read()
        }
        return answer
    }

    /// The pauses before each read again of an answer a replica that lags may have given:
    /// 50 ms doubling, 5 times (1.55 s in all).
    static let readAgainPauses: [Duration] = [50, 100, 200, 400, 800].map { .milliseconds($0) }

    /// Runs a page load unless the server asked to wait after the last one (a `429` or
    /// `503` with `Retry-After`, or a page a replica kept behind): till then, that refusal is
    /// thrown again without a request, with the time left as its ``ListClientError/retryAfter``,
    /// so that an app asking at each scroll event does not flood a busy server.
    func pacingPages(_ load: () async throws -> Void) async throws {
        if let refused = pagesRefused, ContinuousClock.now < refused.until {
            var again = refused.error
            again.retryAfter = refused.until - .now
            throw again
        }
        do {
            try await load()
            pagesRefused = nil
        } catch let error as ListClientError {
            if let wait = error.retryAfter, wait > .zero { pagesRefused = (error, .now + wait) }
            throw error
        }
    }

    /// What `read` answers for the item `id`; while it is the view's `404` for it
    /// (`unknown-item`) and the session holds the item (it learned of it from a change, at a
    /// version a replica that lags does not hold yet) or the view's sections come from a
    /// version older than the session's, read again after pauses as ``readAgain(_:while:)``
    /// does. Behind a load balancer the sections may come from another replica than the
    /// `404`: an item held is read again whatever they say. A `404` for an item not held from
    /// a replica as new as the session (the item is gone), or before the session read
    /// anything, is thrown at once.
    func readUnlessLagging<Answer>(_ id: String, _ read: () async throws -> Answer) async throws -> Answer {
        let held = loaded.sections.contains { $0.items.contains { $0.id.isExactly(id) } }
        var pauses = Self.readAgainPauses[...]
        while true {
            do {
                return try await read()
            } catch let error as ListClientError where error.status == 404 && error.problem == "unknown-item" {
                guard version > 0, let pause = pauses.popFirst() else { throw error }
                if !held {
                    guard let seen = try? await sectionInfo().version, seen < version else { throw error }
                }
                try await Task.sleep(for: pause)
            }
        }
    }

    /// Reads every change since `since` as ``readChanges(since:)`` does, and reads them
    /// again while the answer is older than `floor`, as ``readPage(_:notOlderThan:)`` reads
    /// a page: behind a load balancer, the replica that answers `/changes` may lag the one
    /// that answered the page the changes are merged with (a `since` older than a replica's
    /// version is answered at once, at that version). Answers the last read, older or not.
    func readChanges(since: Int64, reaching floor: Int64) async throws -> (changes: [ListChange], version: Int64) {
        try await readAgain({ try await self.readChanges(since: since) }, while: { $0.version < floor })
    }

    /// Reads every change since `since`, following `next`; returns them and the version
    /// the last answer was current at. More changes than the session holds items (and
    /// over 1,000: one answer's worth) are not read on: a single `reload` at the version
    /// reached stands for them, since reading the held pages again costs less than them
    /// and keeps a session back from a long absence from holding the whole backlog.
    func readChanges(since: Int64) async throws -> (changes: [ListChange], version: Int64) {
        let most = max(1_000, loaded.itemCount)
        var changes: [ListChange] = []
        var from = String(since)
        var answers = 0
        var reached = since
        while true {
            // Answers of a thousand changes each read `most` in fewer: more answers are a
            // server's that says `next` without changes (a broken one), read no further.
            if answers > most / 1_000 + 10 {
                return ([ListChange(op: .reload, version: reached)], reached)
            }
            answers += 1
            let answer = try await transport.get(
                path: configuration.path("/changes"),
                query: try configuration.query([("since", from), ("limit", "1000")], paging: false),
                headers: try await requestHeaders()
            )
            let body = try Self.decode(ChangesBody.self, answer, what: "changes")
            changes += body.changes
            reached = max(reached, changes.last?.version ?? reached, Int64(body.version) ?? reached)
            // More than `most` (the last answer's included; `next` with `most` read says
            // more follow): reloading costs less than applying them.
            if changes.count > most || (changes.count == most && body.next != nil), let last = changes.last {
                return ([ListChange(op: .reload, version: last.version)], last.version)
            }
            guard let next = body.next else {
                guard let version = Int64(body.version) else {
                    throw ListClientError(.badAnswer, message: "changes: version \(body.version)")
                }
                return (changes, version)
            }
            from = next
        }
    }

    /// Looks up the titles of the sections that changes created: the section of their
    /// first item (`/items/{id}`), else the view's section list (`/sections`). A lookup the
    /// server does not answer (busy: `429`; down) leaves the titles unknown, and none is
    /// looked up for ``titleLookupPause`` or the answer's `Retry-After`, the longer: they
    /// run on each publish, and asked again on each event, a busy server's routes that
    /// count a client's cost would be kept busy by the client itself. The changes are
    /// applied all the same.
    func resolveTitles() async throws {
        var missing = loaded.untitled.filter { id in loaded.sections.contains { $0.id.isExactly(id.text) } }
        guard !missing.isEmpty, titlesPausedUntil.map({ ContinuousClock.now >= $0 }) ?? true else { return }
        titlesPausedUntil = nil
        for id in missing {
            guard let item = loaded.sections.first(where: { $0.id.isExactly(id.text) })?.items.first else { continue }
            do {
                let location = try await lookUp(item.id)
                guard location.sectionID.isExactly(id.text) else { continue }
                loaded.setTitle(location.sectionTitle, of: id.text)
                missing.remove(id)
            } catch {
                if pausesTitles(after: error) { return }
            }
        }
        guard !missing.isEmpty else { return }
        do {
            // Read again while older than the changes (a replica that lags holds neither the
            // item looked up above nor its section: the title was left unknown for good);
            // still older, not looked up again for a pause, as after a refusal (each publish
            // would wait for it again).
            let info = try await sectionInfo(notOlderThan: version)
            for section in info.sections where missing.contains(ExactID(section.id)) {
                loaded.setTitle(section.title, of: section.id)
            }
            if info.version.map({ $0 < version }) == true {
                titlesPausedUntil = ContinuousClock.now + Self.titleLookupPause
            }
        } catch {
            _ = pausesTitles(after: error)
        }
    }

    /// How long section titles are not looked up after a lookup the server did not answer.
    public static let titleLookupPause = Duration.seconds(5)

    /// Whether a title lookup that failed with `error` ends the lookups: the server did not
    /// answer it (it could not be reached, or answered `429` or `5xx`), and none is made for
    /// ``titleLookupPause`` or its `Retry-After`, the longer; or the task was cancelled. An
    /// item gone meanwhile (`404`) or an answer the kit cannot read does not.
    private func pausesTitles(after error: any Error) -> Bool {
        if error is CancellationError { return true }
        let refused = error as? ListClientError
        if refused?.code == .badAnswer { return false }
        if let status = refused?.status, status != 429, status < 500 { return false }
        titlesPausedUntil = ContinuousClock.now + max(refused?.retryAfter ?? .zero, Self.titleLookupPause)
        return true
    }

    private func countPage() {
        statistics.pagesRead += 1
    }

    /// `answer`'s body as `type` when it is a `200`; the ``ListClientError`` it stands for
    /// otherwise (`what` names the answer in a message).
    static func decode<T: Decodable>(_ type: T.Type, _ answer: TransportAnswer, what: String) throws -> T {
        guard answer.status == 200 else {
            throw ListClientError.answered(answer.status, body: answer.body, retryAfter: answer.headers["retry-after"])
        }
        do {
            return try JSONDecoder().decode(type, from: Data(answer.body))
        } catch {
            throw ListClientError(.badAnswer, message: "\(what): \(error)")
        }
    }
}
