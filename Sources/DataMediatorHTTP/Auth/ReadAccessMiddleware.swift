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
/// A JWT that does not verify is refused in the verifier's words on every path, and one
/// that does on a path of no scoped list as a JWT that does not read there.
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
        // A JWT is verified on every path, scoped or not: its refusal says why (expired, a
        // bad signature, a key not held: API.md's "a problem that says why"), and takes as
        // long whatever the path names, so neither tells an unknown caller which lists are
        // scoped (review 105 #2, #3: it was verified on scoped paths only, and refused as
        // "not valid" whatever the reason).
        guard let verify, Self.holdsJWT(request) else { return try access.authorize(request) }
        do {
            _ = try await verify(request.headers[.authorization])
        } catch let problem as Problem {
            throw problem
        } catch {
            try access.authorize(request)
        }
        if scoped { return }
        let detail = "A JWT reads only the lists scoped to each caller; this request needs a read token."
        throw Problem(.unauthorized, detail: detail, headers: BearerChallenge.invalidToken(detail))
    }

    /// Whether `request`'s bearer token has a JWT's shape (three parts, dot-separated): one
    /// of another shape is refused as a read token, without the verifier's words.
    static func holdsJWT(_ request: Request) -> Bool {
        guard let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") else {
            return false
        }
        return header.dropFirst(7).split(separator: ".", omittingEmptySubsequences: false).count == 3
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
