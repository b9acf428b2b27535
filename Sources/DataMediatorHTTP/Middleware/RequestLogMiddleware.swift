import Hummingbird
import Logging

/// Logs one line per request: method, path, status and duration, with the request's id.
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        let elapsed = ContinuousClock.now - start
        let microseconds = elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000
        context.logger.info(
            "request",
            metadata: [
                "method": "\(request.method.rawValue)",
                "path": "\(request.uri.path)",
                "status": "\(response.status.code)",
                "duration_ms": "\(Double(microseconds) / 1000)",
            ]
        )
        return response
    }
}
