import DataMediator
import Hummingbird

/// Puts every list route behind a bearer token when the server is configured with read
/// tokens (write tokens read too); with none, reads are open. Writes check their own token.
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
        if isRequired, [.get, .head].contains(request.method), !isScopedListRoute(request.uri.path) {
            try access.authorize(request)
        }
        return try await next(request, context)
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
