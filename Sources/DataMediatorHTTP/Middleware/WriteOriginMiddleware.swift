import DataMediator
import Hummingbird

/// Runs each write for its client's tag (``WriteOrigin``) on a replica of the service that
/// keeps no writes itself (no read replica): its writes' notifications still name their
/// client, so that the replicas that do read from a lagging database replica hold that
/// client's reads until they have replayed its write (``ReadYourWritesMiddleware`` tags the
/// writes where it runs).
struct WriteOriginMiddleware<Context: RequestContext>: RouterMiddleware {
    let identity: ClientIdentity

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard ClientShareMiddleware<Context>.isWrite(request) else { return try await next(request, context) }
        let client = ReadYourWrites.tag(of: await identity.client(of: request, context: context))
        return try await WriteOrigin.$client.withValue(client) { try await next(request, context) }
    }
}
