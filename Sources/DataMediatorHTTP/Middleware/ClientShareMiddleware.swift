import DataMediator
import Foundation
import HTTPTypes
import Hummingbird

/// Holds each client to its share of the routes that cost more than a page (an item's
/// place, a view's sections, its changes, a composite's pages, which read each child they
/// reach): one more in flight, or one more in a second than
/// its rate (where an event stream that resumes, replaying changes, counts too), answers
/// `429` (`too-many-requests`) with `Retry-After`, and the others' requests go on. A
/// client's writes past its rate, when one is set, answer `429` too; past its share they
/// wait in its own line (``ClientLines``), and so do its reads of lists past theirs.
struct ClientShareMiddleware<Context: RequestContext>: RouterMiddleware {
    let shares: ClientShares
    /// Each client's rate of these requests; nil for none.
    let rates: ClientRates?
    /// Each client's line of writes; nil for none.
    var writeLines: ClientLines? = nil
    /// Each client's rate of writes; nil for none.
    var writeRates: ClientRates? = nil
    /// Each client's line of reads of lists (not event streams); nil for none.
    var readLines: ClientLines? = nil
    /// The largest write body read (``WriteRoutes/body(of:limit:)``).
    var maximumBodySize = 1 << 20
    let identity: ClientIdentity
    /// The names of the composite lists, whose pages count too.
    var composites: Set<String> = []

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws
        -> Response
    {
        if writeLines != nil || writeRates != nil, Self.isWrite(request) {
            let client = await identity.client(of: request, context: context)
            // Refused before its line: a burst past the rate does not queue.
            if let writeRates, let wait = writeRates.take(for: client) {
                throw Problem(
                    .tooManyRequests,
                    detail: "This client sent \(writeRates.perSecond) writes in the last second, the most one client "
                        + "may; nothing of this one is stored: send it again after the Retry-After seconds.",
                    headers: [.retryAfter: String(wait)]
                )
            }
            guard let writeLines else { return try await next(request, context) }
            var request = request
            if ClientIdentity.isCredential(client), request.headers[.expect] == nil {
                // A credentialed write's body is read before its turn: one whose body comes
                // slowly (a client on a poor network, or one that stalls) would otherwise hold
                // the turn until its body's time limit, and every other write of the client
                // (of each program sharing its token) waited behind it. One that asked for
                // `100 Continue` was told to send it (RequestHeadCheck took its `Expect`: review
                // 111 #3, four such writes held a token's writes 28 s), unless its head is
                // refused: that one keeps `Expect`, and the route refuses it unread.
                request.body = RequestBody(buffer: try await WriteRoutes.body(of: request, limit: maximumBodySize))
            }
            let turn = try await writeLines.enter(client)
            // The turn is held until the answer is made (a write's answer is built whole).
            defer { withExtendedLifetime(turn) {} }
            return try await next(request, context)
        }
        guard [.get, .head].contains(request.method) else { return try await next(request, context) }
        let counted = Self.isCounted(request.uri.path, composites: composites)
        let lined = readLines != nil && Self.isListRead(request.uri.path)
        // A stream that resumes replays the changes since its version first, as a change
        // read does: its opening counts against the rate (its share is the streams' own).
        let resuming = Self.isResuming(request)
        guard counted || lined || resuming else { return try await next(request, context) }
        let client = await identity.client(of: request, context: context)
        if counted || resuming, let rates, let wait = rates.take(for: client) {
            throw Problem(
                .tooManyRequests,
                detail: "This client sent \(rates.perSecond) lookups, section counts, change reads or composite "
                    + "pages (or resumed streams) in the last second, the most one client may; retry after the "
                    + "Retry-After seconds.",
                headers: [.retryAfter: String(wait)]
            )
        }
        guard counted else { return try await read(request, context, by: client, lined: lined, next: next) }
        guard let hold = shares.take(for: client) else {
            throw Problem(
                .tooManyRequests,
                detail: "This client has \(shares.share) lookups, section counts, change reads or composite pages in "
                    + "flight, the most one client may; retry after the ones in flight have answered.",
                headers: [.retryAfter: "1"]
            )
        }
        // The share is held until the answer is made (these answers are built whole).
        defer { withExtendedLifetime(hold) {} }
        return try await read(request, context, by: client, lined: lined, next: next)
    }

    /// Answers a read of `client`'s, in its line of reads when `lined`, as made for it
    /// (``ReadOrigin``: what a store keeps for readers counts the client's share by it).
    private func read(
        _ request: Request,
        _ context: Context,
        by client: String,
        lined: Bool,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        try await ReadOrigin.$client.withValue(client) {
            try await readInLine(request, context, by: client, lined: lined, next: next)
        }
    }

    /// ``read(_:_:by:lined:next:)`` once the read is tagged with its client.
    private func readInLine(
        _ request: Request,
        _ context: Context,
        by client: String,
        lined: Bool,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard lined, let readLines else { return try await next(request, context) }
        let turn = try await readLines.enter(client)
        // The turn is held until the answer has left for its client, not only made: a
        // client that reads none of its pages would otherwise have one held in memory on
        // each of its connections (a thousand pages of 20 MB).
        if let connection = (context as? any ConnectionRequestContext)?.connection {
            AnswerDrainGuard.keepUntilSent(turn, on: connection)
        }
        // A read given its turn goes behind the tasks already waiting for a thread, other
        // clients' among them: without it another client's request waited for about a
        // whole round of a flooding client's connections (ReadFloodTests). Every read yields,
        // not only those of a client with reads waiting in its line: a page reads SQLite on
        // its thread without suspending, so a flooding client's line is seldom full, and a
        // yield only while it was let another client wait as long as none did.
        await Task.yield()
        // The turn is held until the answer is made (pages and the rest are built whole).
        defer { withExtendedLifetime(turn) {} }
        return try await next(request, context)
    }

    /// Whether `path` reads a list in a request answered whole: any `/lists/{list}/...`
    /// but its event stream, which runs for as long as its client stays (the streams have
    /// shares of their own).
    static func isListRead(_ path: String) -> Bool {
        let parts = RouteSegments.of(path)
        guard parts.count >= 2, parts[0] == "lists" else { return false }
        return !(parts.count == 3 && parts[2] == "events")
    }

    /// Whether `request` opens `/lists/{list}/events` resuming after a version (a
    /// `Last-Event-ID` that is not blank, or `since`).
    static func isResuming(_ request: Request) -> Bool {
        let parts = RouteSegments.of(request.uri.path)
        guard parts.count == 3, parts[0] == "lists", parts[2] == "events" else { return false }
        let lastEventID = request.headers[EventStream.lastEventID]?.trimmingCharacters(in: .whitespaces) ?? ""
        return !lastEventID.isEmpty || request.uri.queryParameters["since"] != nil
    }

    /// Whether `request` writes items: a `POST` of `/lists/{list}/items`, or a `PUT`,
    /// `PATCH` or `DELETE` of `/lists/{list}/items/{id}` (the methods those routes do not
    /// serve answer `405` at no cost).
    static func isWrite(_ request: Request) -> Bool {
        let parts = RouteSegments.of(request.uri.path)
        guard (3...4).contains(parts.count), parts[0] == "lists", parts[2] == "items" else { return false }
        return parts.count == 3 ? request.method == .post : [.put, .patch, .delete].contains(request.method)
    }

    /// Whether `path` is `/lists/{list}/items/{id}`, `/lists/{list}/sections`,
    /// `/lists/{list}/changes`, or `/lists/{list}/items` of a list named in `composites`
    /// (its name as sent: the router does not decode a list's name either).
    static func isCounted(_ path: String, composites: Set<String> = []) -> Bool {
        let parts = RouteSegments.of(path)
        guard parts.count >= 3, parts[0] == "lists" else { return false }
        switch parts[2] {
        case "items":
            guard parts.count < 4 else { return true }
            return !composites.isEmpty && composites.contains(String(parts[1]))
        case "sections", "changes": return parts.count == 3
        default: return false
        }
    }
}
