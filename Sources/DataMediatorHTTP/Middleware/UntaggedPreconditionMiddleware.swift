import DataMediator
import HTTPTypes
import Hummingbird

/// Holds a read of a route whose answers carry no `ETag` (`/health`, `/ready`, `/metrics`,
/// `/problems/{slug}`, a list's `/events`) to its `If-Match` (RFC 9110 13.1.1): `*` holds
/// while the route answers, a list of tags never does (none can name an answer without
/// one), so it is `412` before the route runs, and a field that is neither is `400`. Their
/// `If-None-Match: *` matches any answer (RFC 9110 13.1.2): `304` without a body (but on a
/// stream), with the caching fields the answer has; tags never match. The routes with an
/// `ETag` check both against theirs (``JSONResponse``).
struct UntaggedPreconditionMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws
        -> Response
    {
        guard request.method == .get || request.method == .head,
            request.headers.contains(.ifMatch) || request.headers.contains(.ifNoneMatch),
            Self.isUntagged(request.uri.path)
        else { return try await next(request, context) }
        let tags = try WriteConditions.tags(request.headers[values: .ifMatch], weak: false, name: "If-Match")
        // A malformed If-None-Match is left out on reads, as the routes with an ETag do.
        let none = try? WriteConditions.tags(request.headers[values: .ifNoneMatch], weak: true, name: "If-None-Match")
        if let tags, !tags.contains("*") {
            throw DataMediatorError(
                .preconditionFailed,
                "If-Match names an ETag, and this route's answers carry none: no tag can hold ('*' does)."
            )
        }
        // Not on a stream: its answer is opened by the route, and would be dropped unread.
        if none == ["*"], !request.uri.path.hasSuffix("/events") {
            let answer = try await next(request, context)
            // Only an answer that exists matches: an error stays as it is.
            guard (200..<300).contains(answer.status.code) else { return answer }
            // With the fields the answer would have had that RFC 9110 15.4.5 names: a
            // `no-store` answer's `304` is `no-store` too, so no cache keeps either.
            var headers = HTTPFields()
            for name in [HTTPField.Name.cacheControl, .expires, .vary, .contentLocation, .date] {
                headers[values: name] = answer.headers[values: name]
            }
            return Response(status: .notModified, headers: headers)
        }
        return try await next(request, context)
    }

    /// Whether `path` is one of the routes whose answers carry no `ETag`.
    static func isUntagged(_ path: String) -> Bool {
        let segments = RouteSegments.of(path)
        if segments.count == 1, ["health", "ready", "metrics"].contains(segments[0]) { return true }
        if segments.count == 2, segments[0] == "problems" { return true }
        return segments.count == 3 && segments[0] == "lists" && segments[2] == "events"
    }
}
