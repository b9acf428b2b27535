import DataMediator
import Hummingbird

/// Puts every list route behind a bearer token when the server is configured with read
/// tokens (write tokens read too); with none, reads are open. A request of any method
/// without one is `401`, word for word as on a path that does not exist; a write with a
/// read token then checks its own (write) token.
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
        // Every method, before the route reads anything: a scoped list's `400` for a
        // malformed query, its JWT's own wording, or a write route's own `401` ("Writes
        // need ...", which a list that does not exist never says) would tell an unknown
        // caller which lists exist and which are scoped. Write tokens are among the read
        // tokens, and a scoped list's JWT holders pass (the list verifies the JWT again for
        // the caller's slice). OPTIONS too: its `Allow` (or `404`) tells what exists. A CORS
        // preflight, which carries no token, is answered before this, by the CORS middleware.
        try await requireCredential(request, scoped: isScopedListRoute(request.uri.path))
        return try await next(request, context)
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
