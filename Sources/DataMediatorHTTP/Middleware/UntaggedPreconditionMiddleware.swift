import DataMediator
import HTTPTypes
import Hummingbird

/// Holds a read of a route whose answers carry no `ETag` (`/health`, `/ready`, `/metrics`,
/// `/problems/{slug}`, a list's `/events`) to its `If-Match` (RFC 9110 13.1.1): `*` holds
/// while the route answers, a list of tags never does (none can name an answer without
/// one), so it is `412` before the route runs, and a field that is neither is `400`. The
/// routes with an `ETag` check it against theirs (``JSONResponse``).
struct UntaggedPreconditionMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws
        -> Response
    {
        guard request.method == .get || request.method == .head, request.headers.contains(.ifMatch),
            Self.isUntagged(request.uri.path)
        else { return try await next(request, context) }
        let tags = try WriteConditions.tags(request.headers[values: .ifMatch], weak: false, name: "If-Match")
        if let tags, !tags.contains("*") {
            throw DataMediatorError(
                .preconditionFailed,
                "If-Match names an ETag, and this route's answers carry none: no tag can hold ('*' does)."
            )
        }
        return try await next(request, context)
    }

    /// Whether `path` is one of the routes whose answers carry no `ETag`.
    static func isUntagged(_ path: String) -> Bool {
        if ["/health", "/ready", "/metrics"].contains(path) || path.hasPrefix("/problems/") { return true }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        return segments.count == 4 && segments[1] == "lists" && segments[3] == "events"
    }
}
