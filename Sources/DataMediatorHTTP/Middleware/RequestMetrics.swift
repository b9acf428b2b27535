import DataMediator
import HTTPTypes
import Metrics
import Synchronization

/// The metric handles of ``RequestMiddleware``, made once per key and kept: a request
/// looks its handles up instead of asking the metrics factory for them.
final class RequestMetrics: Sendable {
    /// The handles of one route, method and status.
    struct Handles: Sendable {
        /// `hb.requests`: the count of answers.
        let requests: Counter
        /// `http.server.request.duration`: how long they took.
        let duration: Timer
        /// `hb.request.errors`: the errors that reached the middleware; none for a status
        /// below 400 (a series of its own, always 0, for each route's successes).
        let errors: Counter?

        /// Counts one answer that took from `start` until now.
        func record(since start: ContinuousClock.Instant) {
            requests.increment()
            duration.recordNanoseconds((ContinuousClock.now - start).nanoseconds)
        }
    }

    private struct Key: Hashable {
        let route: String
        let method: String
        let status: Int
    }

    private let activeByMethod = Mutex<[String: Meter]>([:])
    private let handlesByKey = Mutex<[Key: Handles]>([:])

    /// The methods kept as they are in dimensions; any other is `_OTHER` (as OpenTelemetry's
    /// conventions name it), so made-up methods cannot grow the number of series.
    static let knownMethods: Set<HTTPRequest.Method> = [
        .get, .head, .post, .put, .delete, .connect, .options, .trace, .patch,
    ]

    /// `method` as the dimensions name it.
    static func dimension(_ method: HTTPRequest.Method) -> String {
        knownMethods.contains(method) ? method.rawValue : "_OTHER"
    }

    /// `http.server.active_requests` of `method`.
    func active(method: HTTPRequest.Method) -> Meter {
        let method = Self.dimension(method)
        return activeByMethod.withLock { meters in
            if let meter = meters[method] { return meter }
            let meter = Meter(label: "http.server.active_requests", dimensions: [("http.request.method", method)])
            meters[method] = meter
            return meter
        }
    }

    /// `route` as the contract names it: an item's routes match the rest of the path (an
    /// id may hold a `/`), which the router names `**`, and API.md names `{id}`.
    static func label(_ route: String) -> String {
        route.hasSuffix("/items/**") ? String(route.dropLast(2)) + "{id}" : route
    }

    /// The handles of `route`, `method` and `status`.
    func handles(route: String, method: HTTPRequest.Method, status: HTTPResponse.Status) -> Handles {
        let route = Self.label(route)
        let key = Key(route: route, method: Self.dimension(method), status: status.code)
        return handlesByKey.withLock { table in
            if let handles = table[key] { return handles }
            let dimensions = [
                ("http.route", route),
                ("http.request.method", key.method),
                ("http.response.status_code", String(status.code)),
            ]
            let handles = Handles(
                requests: Counter(label: "hb.requests", dimensions: dimensions),
                duration: Timer(
                    label: "http.server.request.duration",
                    dimensions: dimensions,
                    preferredDisplayUnit: .seconds
                ),
                errors: status.code < 400
                    ? nil
                    : Counter(
                        label: "hb.request.errors",
                        dimensions: [
                            ("http.route", route),
                            ("http.request.method", key.method),
                            ("error.type", String(status.code)),
                        ]
                    )
            )
            table[key] = handles
            return handles
        }
    }
}
