import DataMediator
import Hummingbird

/// Puts every list route behind a bearer token when the server is configured with read
/// tokens (write tokens read too); with none, reads are open. Writes check their own token;
/// a request of another method to what is not served is `401` without a token too.
/// The routes of a scoped list's items (`/lists/{list}/...`) are left to the list, which
/// asks each caller for a JWT: its slice is theirs alone.
struct ReadAccessMiddleware<Context: RequestContext>: RouterMiddleware {
    let access: BearerAccess
    let isRequired: Bool
    /// The names of the scoped lists.
    let scopedLists: Set<String>

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws
        -> Response
    {
        guard isRequired, !isScopedListRoute(request.uri.path) else { return try await next(request, context) }
        // OPTIONS too: its `Allow` (or `404`) tells what exists. A CORS preflight, which
        // carries no token, is answered before this, by the CORS middleware.
        if [.get, .head, .options].contains(request.method) {
            try access.authorize(request)
            return try await next(request, context)
        }
        // Other methods answer as their routes do (a write checks its own token, a preflight
        // carries none), but what is not served (404, 405) is 401 without a token: else
        // `OPTIONS /lists/x` or `TRACE /nope` would tell an unknown caller what exists.
        do {
            return try await next(request, context)
        } catch let error as any HTTPResponseError
            where [.notFound, .methodNotAllowed].contains(error.status) && !access.accepts(request)
        {
            try access.authorize(request)
            throw error
        }
    }

    /// Whether `path` is below a scoped list's own path (`/lists/{list}/items`, ...).
    private func isScopedListRoute(_ path: String) -> Bool {
        guard !scopedLists.isEmpty else { return false }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count > 3, parts[1] == "lists", let name = PathSegment.decode(String(parts[2])) else {
            return false
        }
        return scopedLists.contains(name)
    }
}
