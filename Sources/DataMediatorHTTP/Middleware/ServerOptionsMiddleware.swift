import HTTPTypes
import Hummingbird

/// Answers `OPTIONS *`, which asks about the server rather than a resource (RFC 9110
/// 9.3.7): `204` with `Allow` naming every method some route serves
/// (``MethodNotAllowed/allowAnywhere``). Any other request goes on to the routes.
struct ServerOptionsMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws
        -> Response
    {
        guard request.method == .options, request.uri.path == "*" else { return try await next(request, context) }
        return Response(status: .noContent, headers: [.allow: MethodNotAllowed.allowAnywhere])
    }
}
