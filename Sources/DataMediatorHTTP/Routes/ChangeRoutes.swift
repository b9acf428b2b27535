import DataMediator
import HTTPTypes
import Hummingbird
import Metrics
import NIOCore
import Synchronization

/// The observer routes of the list contract: `GET /lists/{list}/changes` (what changed
/// since a version) and `GET /lists/{list}/events` (the same, live, as Server-Sent Events).
struct ChangeRoutes: Sendable {
    let registry: ListRegistry
    let scope: ScopeAccess
    let events: EventConfiguration
    let streams = StreamCount()
    /// Each client's share of the streams.
    let clientStreams: ClientShares

    init(registry: ListRegistry, scope: ScopeAccess, events: EventConfiguration) {
        self.registry = registry
        self.scope = scope
        self.events = events
        self.clientStreams = ClientShares(share: events.maximumStreamsPerClient)
    }

    func register<Context: RequestContext>(on router: Router<Context>) {
        router.get("/lists/:list/changes") { request, context in
            let adapter = try registry.adapter(named: try ListQuery.path(context, "list"))
            let query = try ListQuery(request, allowed: [.view, .since, .limit])
            let slice = try query.slice(of: adapter, claims: try await scope.claims(for: adapter, request))
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
            return JSONResponse.make(changes.json(), for: request, headers: headers ?? [:])
        }
        router.get("/lists/:list/events") { request, context in
            let adapter = try registry.adapter(named: try ListQuery.path(context, "list"))
            let query = try ListQuery(request, allowed: [.view, .since])
            let slice = try query.slice(of: adapter, claims: try await scope.claims(for: adapter, request))
            let view = try adapter.definition.view(named: query.view, slice: slice)
            let start: Int64
            if let lastEventID = request.headers[EventStream.lastEventID] {
                start = try ListAdapter.version(lastEventID, name: "Last-Event-ID")
            } else if query.since != nil {
                start = try ListAdapter.version(query.since)
            } else {
                start = try await adapter.currentVersion()
            }
            let stream = EventStream(adapter: adapter, view: view, start: start, settings: events)
            // Streams opening at the same moment may pass this check together; the count is
            // kept inside each stream's body, so it is always right.
            guard streams.count < events.maximumStreams else {
                throw Problem(
                    .tooManyStreams,
                    detail: "\(events.maximumStreams) event streams are open, the most this server keeps; retry later.",
                    headers: [.retryAfter: "5"]
                )
            }
            guard let hold = clientStreams.take(for: ClientShares.client(of: request, context: context)) else {
                throw Problem(
                    .tooManyStreams,
                    detail: "This client holds \(events.maximumStreamsPerClient) event streams, the most one client "
                        + "may; close one, or retry later.",
                    headers: [.retryAfter: "5"]
                )
            }
            let streams = self.streams
            return Response(
                status: .ok,
                headers: [
                    .contentType: "text/event-stream; charset=utf-8",
                    .cacheControl: "no-store",
                    EventStream.accelBuffering: "no",
                ],
                body: ResponseBody { writer in
                    // The client's share is held while the body runs, and given back when it ends.
                    let hold = hold
                    defer { withExtendedLifetime(hold) {} }
                    let open = Meter(label: "data_mediator_sse_streams")
                    open.increment()
                    streams.enter()
                    defer {
                        open.decrement()
                        streams.leave()
                    }
                    try await stream.run(into: &writer)
                    try await writer.finish(nil)
                }
            )
        }
        for path in ["/lists/:list/changes", "/lists/:list/events"] {
            MethodNotAllowed.register(RouterPath(path), on: router)
        }
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

/// The count of open event streams, shared by every route that opens one.
final class StreamCount: Sendable {
    private let open = Atomic<Int>(0)

    /// The streams open now.
    var count: Int { open.load(ordering: .relaxed) }

    /// Counts a stream in (from inside its body, which always ends, so the count never leaks).
    func enter() {
        open.add(1, ordering: .relaxed)
    }

    /// Counts a stream out.
    func leave() {
        open.subtract(1, ordering: .relaxed)
    }
}
