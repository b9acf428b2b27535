import DataMediator
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Metrics

/// What every request gets, in one pass: an id, its metrics, one log line and the headers
/// every answer carries (``mark(_:for:)``).
///
/// - The id is the client's `X-Request-ID` when it is a sensible one (``RequestIDs/accepted(_:)``),
///   else a new one (``RequestIDs/next()``). It is in every log line of the request
///   (`request_id`) and echoed in the answer's `X-Request-ID`, so a client's report and the
///   server's log meet.
/// - Metrics, under the names and dimensions of Hummingbird's `MetricsMiddleware`:
///   `http.server.active_requests` by method, and by route, method and status the count
///   `hb.requests`, the timer `http.server.request.duration` and, for errors thrown up to
///   it (every error answer: ``ProblemMiddleware`` below throws them on), `hb.request.errors`.
///   An error the router answered outside a route is labelled with the route of its path
///   (`TRACE /lists` is `405` at `/lists`), or `NotFound` where no route has its path.
/// - The log line `request`: method, path, status and duration in milliseconds.
///
/// An answer whose body is in memory is counted when the handler returns, so the framework
/// still writes its head and body in one batch (Hummingbird's own middleware wraps every
/// body to count after the write, which costs three writes to the connection's event loop
/// instead of one). A streamed body (no known length: the event streams) is counted when
/// its last byte is written, and is an active request until then.
struct RequestMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The `X-Request-ID` header.
    static var field: HTTPField.Name { .known("X-Request-ID") }

    /// The route an error answer is counted under: the one the router matched, else the
    /// route of its path (the router's not-found answer, which the service turns into a
    /// `405` for a method no route serves, is named `NotFound` by Hummingbird), else
    /// `NotFound`.
    static func route(_ matched: String?, path: String) -> String {
        if let matched, matched != "NotFound" { return matched }
        return RouteSegments.route(of: path) ?? "NotFound"
    }

    /// The metric handles, made once per method and per route, method and status.
    let metrics = RequestMetrics()

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let start = ContinuousClock.now
        let id = request.headers[Self.field].flatMap(RequestIDs.accepted) ?? RequestIDs.next()
        var context = context
        context.logger[metadataKey: "request_id"] = "\(id)"
        let active = metrics.active(method: request.method)
        active.increment()
        var response: Response
        do {
            // RFC 9110 11.6.2: `Authorization` is one credential; two fields would be read
            // joined ("Bearer a, Bearer b") and refused as a token that is not valid.
            if request.headers[.authorization] != nil, request.headers[fields: .authorization].count > 1 {
                throw Problem(
                    .badRequest,
                    detail: "The request has more than one 'Authorization' header; send one credential."
                )
            }
            response = try await next(request, context)
        } catch let cut as ConnectionGuard.RequestCut {
            // The guard answered this request itself (and logged it): the framework's answer
            // goes nowhere and is not counted.
            active.decrement()
            throw cut
        } catch let cut as BodyCutShort {
            // Its client left mid-body: logged and counted as such, not as an error answer.
            let status = BodyCutShort.status
            metrics.handles(
                route: Self.route(context.endpointPath, path: request.uri.path),
                method: request.method,
                status: status
            )
            .record(since: start)
            active.decrement()
            log(request, status: status, since: start, context: context)
            throw cut
        } catch {
            // Every error thrown below answers problem+json (``ProblemMiddleware``); it is
            // answered here rather than by the router so that a HEAD request's error, like
            // its other answers, goes back through the router's HEAD handling without a body.
            let answer = error as? any HTTPResponseError ?? Problem.internalError
            let handles = metrics.handles(
                route: Self.route(context.endpointPath, path: request.uri.path),
                method: request.method,
                status: answer.status
            )
            handles.record(since: start)
            handles.errors?.increment()
            active.decrement()
            log(request, status: answer.status, since: start, context: context)
            response = try answer.response(from: request, context: context)
            response.headers[Self.field] = id
            Self.mark(&response, for: request)
            return response
        }
        response.headers[Self.field] = id
        Self.mark(&response, for: request)
        let handles = metrics.handles(
            route: context.endpointPath ?? "Unknown",
            method: request.method,
            status: response.status
        )
        if response.body.contentLength == nil {
            response.body = Self.counted(response.body) {
                handles.record(since: start)
                active.decrement()
            }
        } else {
            handles.record(since: start)
            active.decrement()
        }
        log(request, status: response.status, since: start, context: context)
        return response
    }

    /// `body`, calling `done` once it has been written and let go, or let go unwritten (its
    /// connection closed before its head could be written: the framework then never writes
    /// the body, and a request counted active stayed so for good).
    static func counted(_ body: ResponseBody, _ done: @escaping @Sendable () -> Void) -> ResponseBody {
        let hold = ClientShares.Hold(release: done)
        return ResponseBody { writer in
            defer { withExtendedLifetime(hold) {} }
            try await body.write(writer)
        }
    }

    /// The headers every answer carries: `X-Content-Type-Options: nosniff` (a browser never
    /// reads a JSON answer as anything else); and an answer that caches may keep
    /// (`no-cache`) given to a request with `Authorization` is `private`: it holds what
    /// the token was needed for, so no cache shared between users may keep it (RFC 9111
    /// 5.2.2.7), as a browser's own may, to revalidate; and it says `Vary: Authorization`,
    /// since another token may select another answer (a scoped list's slice: RFC 9110
    /// 12.5.5), so that a browser that keeps one user's answer never offers it for
    /// another's request. The `Vary` fields the middlewares added one by one (`Origin`,
    /// `Accept-Encoding`, `Authorization`, `Accept`) are sent as one: RFC 9110 allows
    /// either, but caches such as nginx before 1.23 key an answer by the last `Vary` field
    /// alone.
    static func mark(_ response: inout Response, for request: Request) {
        if response.headers[.xContentTypeOptions] == nil { response.headers[.xContentTypeOptions] = "nosniff" }
        if request.headers[.authorization] != nil, response.headers[.cacheControl] == JSONResponse.cacheControl {
            response.headers[.cacheControl] = "private, " + JSONResponse.cacheControl
            response.headers.append(HTTPField(name: .vary, value: "Authorization"))
        }
        let vary = response.headers[values: .vary]
        if vary.count > 1 {
            var names: [String] = []
            for name in vary.flatMap({ $0.split(separator: ",") }).map({ $0.trimmingCharacters(in: .whitespaces) })
            where !name.isEmpty && !names.contains(where: { $0.caseInsensitiveCompare(name) == .orderedSame }) {
                names.append(name)
            }
            response.headers[values: .vary] = [names.joined(separator: ", ")]
        }
    }

    /// Writes the request's line.
    private func log(
        _ request: Request,
        status: HTTPResponse.Status,
        since start: ContinuousClock.Instant,
        context: Context
    ) {
        // The metadata is built only when the line is written at the logger's level.
        context.logger.info(
            "request",
            metadata: [
                "method": .string(request.method.rawValue),
                "path": .string(request.uri.path),
                "status": .stringConvertible(LoggedNumber(status.code)),
                "duration_ms": .stringConvertible(LoggedNumber(milliseconds: ContinuousClock.now - start)),
            ]
        )
    }
}
