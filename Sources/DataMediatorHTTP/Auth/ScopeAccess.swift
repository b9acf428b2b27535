import DataMediator
import Hummingbird

/// The claims of a request to a scoped list, from its bearer token: what selects the
/// caller's slice. Requests to lists without a scope are not asked for a token here.
struct ScopeAccess: Sendable {
    /// Verifies an `Authorization` header's JWT and answers its claims; nil when no key is
    /// configured, so scoped lists answer `401` to everyone.
    let verify: (@Sendable (_ authorization: String?) async throws -> [String: JSONValue])?
    /// The configured write tokens: an operator's, which reads a scoped list whole (API.md:
    /// "the configured static write tokens keep full access").
    let operators: BearerAccess
    /// How far past its `exp` ``verify`` still accepts a token (a scoped stream's end).
    let leeway: Duration

    /// Who reads `adapter`'s list: the caller's claims when it is scoped (``claims(for:_:)``),
    /// or the whole of it for a request with a configured write token.
    ///
    /// - Throws: as ``claims(for:_:)``.
    func caller(for adapter: ListAdapter, _ request: Request) async throws -> ScopeCaller {
        if adapter.definition.scope != nil, operators.accepts(request) { return ScopeCaller(claims: nil, whole: true) }
        return ScopeCaller(claims: try await claims(for: adapter, request), whole: false)
    }

    /// The caller's claims when `adapter`'s list is scoped; nil for other lists.
    ///
    /// - Throws: `unauthorized` (401 with `WWW-Authenticate: Bearer`) when the list is
    ///   scoped and no key is configured, or the token is missing or not valid.
    func claims(for adapter: ListAdapter, _ request: Request) async throws -> [String: JSONValue]? {
        guard adapter.definition.scope != nil else { return nil }
        guard let verify else {
            throw Problem(
                .unauthorized,
                detail: "List '\(adapter.definition.name)' is scoped to each caller, and this server has no key "
                    + "to verify tokens with (DATA_MEDIATOR_JWT_SECRET or DATA_MEDIATOR_JWKS_FILE).",
                headers: BearerChallenge.credentialsMissing
            )
        }
        return try await verify(request.headers[.authorization])
    }

    /// Whether the token `caller` was read from still verifies with the keys in use (a
    /// reload may have taken its key out); nil for a caller without a token.
    func stillAccepted(_ caller: ScopeCaller, _ request: Request) -> (@Sendable () async -> Bool)? {
        guard caller.claims != nil, let verify else { return nil }
        let authorization = request.headers[.authorization]
        return { (try? await verify(authorization)) != nil }
    }
}

/// Who reads a list: the claims of the caller's verified token (nil when the list is not
/// scoped), or `whole`, an operator who reads every slice of a scoped list.
struct ScopeCaller: Sendable {
    let claims: [String: JSONValue]?
    let whole: Bool
}
