import DataMediator
import HTTPTypes
import Hummingbird

/// Holds a read of a route whose answers carry no `ETag` (`/health`, `/ready`, `/metrics`,
/// `/problems/{slug}`, a list's `/events`) to its `If-Match` (RFC 9110 13.1.1): `*` holds
/// while the route answers, a list of tags never does (none can name an answer without
/// one), so it is `412`, and a field that is neither is `400`. Their `If-None-Match: *`
/// matches any answer (RFC 9110 13.1.2): `304` without a body (but on a stream), with the
/// caching fields the answer has; tags never match. The routes with an `ETag` check both
/// against theirs (``JSONResponse``).
///
/// The conditions are evaluated only where the answer without them is `2xx` (RFC 9110
/// 13.2.1): after the route answered, so an unknown problem page stays `404`, a read
/// without its token `401` and `/ready` while not ready `503`; a stream's route checks its
/// `If-Match` itself (``checkIfMatch(_:)``), after its own checks and before the stream
/// opens.
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
            Self.isUntagged(request.uri.path), !Self.isStream(request.uri.path)
        else { return try await next(request, context) }
        let answer = try await next(request, context)
        // Only an answer that exists is held to them: an error stays as it is.
        guard (200..<300).contains(answer.status.code) else { return answer }
        try Self.checkIfMatch(request)
        // A malformed If-None-Match is left out on reads, as the routes with an ETag do.
        let none = try? WriteConditions.tags(request.headers[values: .ifNoneMatch], weak: true, name: "If-None-Match")
        guard none == ["*"] else { return answer }
        // With the fields the answer would have had that RFC 9110 15.4.5 names: a
        // `no-store` answer's `304` is `no-store` too, so no cache keeps either.
        var headers = HTTPFields()
        for name in [HTTPField.Name.cacheControl, .expires, .vary, .contentLocation, .date] {
            headers[values: name] = answer.headers[values: name]
        }
        return Response(status: .notModified, headers: headers)
    }

    /// Refuses a read of an untagged route whose `If-Match` names tags (`412`) or is
    /// malformed (`400`); `*` and none hold.
    static func checkIfMatch(_ request: Request) throws {
        let tags = try WriteConditions.tags(request.headers[values: .ifMatch], weak: false, name: "If-Match")
        if let tags, !tags.contains("*") {
            throw DataMediatorError(
                .preconditionFailed,
                "If-Match names an ETag, and this route's answers carry none: no tag can hold ('*' does)."
            )
        }
    }

    /// Whether `path` is one of the routes whose answers carry no `ETag`.
    static func isUntagged(_ path: String) -> Bool {
        let segments = RouteSegments.of(path)
        if segments.count == 1, ["health", "ready", "metrics"].contains(segments[0]) { return true }
        return isStream(path)
    }

    /// Whether `path` is a list's event stream, whose route checks its own `If-Match`
    /// and whose answer is never `304`.
    static func isStream(_ path: String) -> Bool {
        let segments = RouteSegments.of(path)
        return segments.count == 3 && segments[0] == "lists" && segments[2] == "events"
    }
}
