import DataMediator
import Hummingbird

/// Puts every list route behind a bearer token when the server is configured with read
/// tokens (write tokens read too); with none, reads are open. Writes check their own token;
/// a request of another method to what is not served is `401` without a token too.
/// On a scoped list's routes (`/lists/{list}` and below) a valid JWT counts as a token: its
/// holder reads the list's description (its views, parameters and scope, what a client
/// needs to ask for its slice), and the list asks each caller for their JWT for the rest:
/// its slice is theirs alone.
struct ReadAccessMiddleware<Context: RequestContext>: RouterMiddleware {
    let access: BearerAccess
    let isRequired: Bool
    /// The names of the scoped lists.
    let scopedLists: Set<String>
    /// Verifies a JWT (the `Authorization` field), as scoped lists do; nil when no key is
    /// configured.
    let verify: (@Sendable (_ authorization: String?) async throws -> [String: JSONValue])?

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws
        -> Response
    {
        guard isRequired else { return try await next(request, context) }
        let scoped = isScopedListRoute(request.uri.path)
        // A scoped list's reads too, before the list reads the query: its `400` for a
        // malformed one, or its JWT's own wording, would tell an unknown caller which
        // scoped lists exist. The list verifies the JWT again for the caller's slice.
        // OPTIONS too: its `Allow` (or `404`) tells what exists. A CORS preflight, which
        // carries no token, is answered before this, by the CORS middleware.
        if [.get, .head, .options].contains(request.method) {
            try await requireCredential(request, scoped: scoped)
            return try await next(request, context)
        }
        // Other methods answer as their routes do (a write checks its own token), but what
        // is not served (404, 405) is 401 without a token: else `TRACE /nope` or `PUT
        // /lists/x/items` would tell an unknown caller what exists.
        do {
            return try await next(request, context)
        } catch let error as any HTTPResponseError where [.notFound, .methodNotAllowed].contains(error.status) {
            try await requireCredential(request, scoped: scoped)
            throw error
        }
    }

    /// Passes a request with a read (or write) token, or on a scoped list's route a valid
    /// JWT.
    ///
    /// - Throws: `unauthorized` otherwise.
    private func requireCredential(_ request: Request, scoped: Bool) async throws {
        if access.accepts(request) { return }
        if scoped, let verify, (try? await verify(request.headers[.authorization])) != nil { return }
        try access.authorize(request)
    }

    /// Whether `path` is a scoped list's own path or below it (`/lists/{list}`,
    /// `/lists/{list}/items`, ...).
    private func isScopedListRoute(_ path: String) -> Bool {
        guard !scopedLists.isEmpty else { return false }
        let parts = RouteSegments.of(path)
        guard parts.count >= 2, parts[0] == "lists", let name = PathSegment.decode(String(parts[1])) else {
            return false
        }
        return scopedLists.contains(name)
    }
}
