import Hummingbird

/// Puts every list route behind a bearer token when the server is configured with read
/// tokens (write tokens read too); with none, reads are open. Writes check their own token.
struct ReadAccessMiddleware<Context: RequestContext>: RouterMiddleware {
    let access: BearerAccess
    let isRequired: Bool

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws
        -> Response
    {
        if isRequired, [.get, .head].contains(request.method) {
            try access.authorize(request)
        }
        return try await next(request, context)
    }
}
