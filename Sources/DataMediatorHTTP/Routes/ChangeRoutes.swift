import DataMediator
import Foundation
import HTTPTypes
import Hummingbird
import Metrics
import NIOCore

/// The observer routes of the list contract: `GET /lists/{list}/changes` (what changed
/// since a version) and `GET /lists/{list}/events` (the same, live, as Server-Sent Events).
struct ChangeRoutes: Sendable {
    /// When a token whose claims are `claims` is no longer accepted (`exp`, seconds since
    /// 1970, and the `leeway` the verifier gives it), as an instant of the clock streams
    /// wait on; nil without claims or `exp`.
    static func expiry(of claims: [String: JSONValue]?, leeway: Duration) -> ContinuousClock.Instant? {
        let seconds: Double
        switch claims?["exp"] {
        case .integer(let whole)?: seconds = Double(whole)
        case .number(let real)?: seconds = real
        default: return nil
        }
        let left = min(max(seconds + leeway.inSeconds - Date().timeIntervalSince1970, 0), 366 * 86_400)
        return .now + .milliseconds(Int64(left * 1000))
    }

    /// The version a stream resumes after: `Last-Event-ID`, else `since`; nil for none
    /// (the list's current version). An empty `Last-Event-ID` is none: it is what an
    /// `id:` field with no value leaves (WHATWG's event stream), which a browser never sends.
    ///
    /// - Throws: `bad-request` when the one given is not a version.
    static func resumption(_ request: Request, _ query: ListQuery) throws(DataMediatorError) -> Int64? {
        if let lastEventID = request.headers[EventStream.lastEventID],
            !lastEventID.trimmingCharacters(in: .whitespaces).isEmpty
        {
            return try ListAdapter.version(lastEventID, name: "Last-Event-ID")
        }
        guard query.since != nil else { return nil }
        return try ListAdapter.version(query.since)
    }

    /// The headers of an event stream's answer (and of `HEAD` there).
    static let streamHeaders: HTTPFields = [
        .contentType: "text/event-stream; charset=utf-8",
        .cacheControl: "no-store",
        EventStream.accelBuffering: "no",
    ]

    let registry: ListRegistry
    let scope: ScopeAccess
    let events: EventConfiguration
    /// The streams open, all clients together (one share, under one key).
    let streams: ClientShares
    /// Each client's share of the streams.
    let clientStreams: ClientShares
    /// Who holds each stream, for ``clientStreams``.
    let identity: ClientIdentity
    /// Each client's line of reads, which its streams' catching up takes a turn in per
    /// batch; nil for none.
    let readLines: ClientLines?
    /// The one key of ``streams``.
    static let everyone = "everyone"

    init(
        registry: ListRegistry,
        scope: ScopeAccess,
        events: EventConfiguration,
        identity: ClientIdentity,
        readLines: ClientLines? = nil
    ) {
        self.registry = registry
        self.scope = scope
        self.events = events
        self.identity = identity
        self.readLines = readLines
        self.streams = ClientShares(share: events.maximumStreams)
        self.clientStreams = ClientShares(share: events.maximumStreamsPerClient)
        // The gauge is in /metrics from the start, at 0, not only once a stream has opened.
        Meter(label: "data_mediator_sse_streams").set(0)
    }

    func register<Context: RequestContext>(on router: Router<Context>) {
        router.get("/lists/:list/changes") { request, context in
            let adapter = try registry.adapter(named: try ListQuery.path(context, "list"))
            let query = try ListQuery(request, allowed: [.view, .since, .limit])
            let slice = try query.slice(of: adapter, caller: try await scope.caller(for: adapter, request))
            let changes = try await adapter.changes(
                view: query.view,
                since: query.since,
                limit: query.limit,
                slice: slice
            )
            let headers = changes.next.map { next in
                ListQuery.nextLink(
                    adapter.definition.href + "/changes",
                    [("view", query.view)] + query.sliceParameters(of: adapter)
                        + [("limit", query.limit), ("since", String(next))]
                )
            }
            return try JSONResponse.make(changes.json(), for: request, headers: headers ?? [:])
        }
        router.get("/lists/:list/events") { request, context in
            let adapter = try registry.adapter(named: try ListQuery.path(context, "list"))
            let query = try ListQuery(request, allowed: [.view, .since])
            let caller = try await scope.caller(for: adapter, request)
            let slice = try query.slice(of: adapter, caller: caller)
            let view = try adapter.definition.view(named: query.view, slice: slice)
            let resumed = try Self.resumption(request, query)
            let start: Int64
            if let resumed {
                start = resumed
            } else {
                start = try await adapter.currentVersion()
            }
            let client = await identity.client(of: request, context: context)
            let readTurn: (@Sendable () async throws -> ClientShares.Hold)?
            if let readLines {
                readTurn = { try await readLines.enter(client) }
            } else {
                readTurn = nil
            }
            let stream = EventStream(
                adapter: adapter,
                view: view,
                start: start,
                resumed: resumed != nil,
                settings: events,
                closed: (context as? any ConnectionRequestContext)?.connectionClosed,
                ends: Self.expiry(of: caller.claims, leeway: scope.leeway),
                stillAccepted: scope.stillAccepted(caller, request),
                logger: context.logger,
                readTurn: readTurn
            )
            let (open, hold) = try takeShares(for: client)
            // Held to its If-Match once the stream would open (RFC 9110 13.2.1); the shares
            // go back with a refusal.
            try UntaggedPreconditionMiddleware<Context>.checkIfMatch(request)
            let unwritten = stream.unwrittenEnd()
            return Response(
                status: .ok,
                headers: Self.streamHeaders,
                body: ResponseBody { writer in
                    unwritten.began()
                    // The shares are held while the body runs, and given back when it ends.
                    let holds = (open, hold)
                    defer { withExtendedLifetime(holds) {} }
                    let meter = Meter(label: "data_mediator_sse_streams")
                    meter.increment()
                    defer { meter.decrement() }
                    try await stream.run(into: &writer)
                    try await writer.finish(nil)
                }
            )
        }
        // HEAD answers the stream's headers after the same checks, and opens no stream: run
        // as a GET whose body is dropped, it held a stream's share (and the server's count of
        // active requests) with nothing to end it, and said `Content-Length: 0`.
        router.head("/lists/:list/events") { request, context in
            let adapter = try registry.adapter(named: try ListQuery.path(context, "list"))
            let query = try ListQuery(request, allowed: [.view, .since])
            let slice = try query.slice(of: adapter, caller: try await scope.caller(for: adapter, request))
            _ = try adapter.definition.view(named: query.view, slice: slice)
            _ = try Self.resumption(request, query)
            // As its GET would be answered now: a 503 when no stream could open (the shares
            // taken go back at once).
            _ = try takeShares(for: await identity.client(of: request, context: context))
            try UntaggedPreconditionMiddleware<Context>.checkIfMatch(request)
            return Response(
                status: .ok,
                headers: Self.streamHeaders,
                body: ResponseBody { writer in try await writer.finish(nil) }
            )
        }
        for path in ["/lists/:list/changes", "/lists/:list/events"] {
            MethodNotAllowed.register(RouterPath(path), on: router, registry: registry)
        }
    }

    /// A stream's shares of the server's streams and of its client's, held while the
    /// stream runs; taken at once, so streams opening at the same moment cannot pass the
    /// caps together.
    ///
    /// - Throws: `too-many-streams` (503, `Retry-After`) when either is used up.
    private func takeShares(for client: String) throws(Problem) -> (ClientShares.Hold, ClientShares.Hold) {
        guard let open = streams.take(for: Self.everyone) else {
            throw Problem(
                .tooManyStreams,
                detail: "\(events.maximumStreams) event streams are open, the most this server keeps; retry later.",
                headers: [.retryAfter: "5"]
            )
        }
        guard let hold = clientStreams.take(for: client) else {
            throw Problem(
                .tooManyStreams,
                detail: "This client holds \(events.maximumStreamsPerClient) event streams, the most one client "
                    + "may; close one, or retry later.",
                headers: [.retryAfter: "5"]
            )
        }
        return (open, hold)
    }
}

/// How live streams behave.
public struct EventConfiguration: Sendable, Hashable {
    /// How often a quiet stream sends a heartbeat comment (and looks for writes made elsewhere).
    public var heartbeat: Duration
    /// How many events may wait for a stream once it is live; a stream further behind is
    /// closed with `event: reload`, so a slow reader never holds anything up.
    public var buffer: Int
    /// How many event streams may be open at once; one more answers `503`
    /// (`too-many-streams`, with `Retry-After`).
    public var maximumStreams: Int
    /// How many of them one client (one token, or one address without a token) may hold;
    /// below ``maximumStreams`` (at most one less), so one client never takes them all.
    public var maximumStreamsPerClient: Int

    /// Creates an event configuration: by default a heartbeat every 10 s, 1,000 waiting
    /// events, 256 open streams and 32 per client.
    public init(
        heartbeat: Duration = .seconds(10),
        buffer: Int = 1000,
        maximumStreams: Int = 256,
        maximumStreamsPerClient: Int = 32
    ) {
        self.heartbeat = heartbeat
        self.buffer = max(1, buffer)
        self.maximumStreams = max(1, maximumStreams)
        self.maximumStreamsPerClient = max(1, min(maximumStreamsPerClient, self.maximumStreams - 1))
    }
}
