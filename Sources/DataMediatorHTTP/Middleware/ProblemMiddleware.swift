import DataMediator
import HTTPTypes
import Hummingbird
import Logging

/// Makes every error thrown below it one that answers problem+json, and throws it on so
/// that the request middleware counts it with its status: contract errors and problems pass
/// as they are, the framework's own errors (no route, bad request) become the matching
/// problem, and anything else becomes a 500 that is logged at error level and reveals nothing.
struct ProblemMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The methods served at a path, for the `Allow` of a `405` to a method no route serves.
    let allow: @Sendable (String) -> String

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let problem as Problem {
            throw problem
        } catch let error as DataMediatorError {
            throw error
        } catch let cut as ConnectionGuard.RequestCut {
            throw cut
        } catch let cut as BodyCutShort {
            throw cut
        } catch let error as HTTPError {
            throw Self.problem(for: error, method: request.method, allow: { allow(request.uri.path) })
        } catch is CancellationError {
            // The service stopped (its grace period ran out) or the client went away before
            // the answer: not a fault of the server's, and not counted as one.
            context.logger.notice("request cut off before its answer (shutdown, or the client gone)")
            throw Problem(
                .notReady,
                detail: "The service stopped before it answered this request; retry shortly.",
                headers: [.retryAfter: "1"]
            )
        } catch {
            context.logger.error("request failed", metadata: ["error": "\(String(reflecting: error))"])
            throw Problem.internalError
        }
    }
    static func problem(for error: HTTPError, method: HTTPRequest.Method, allow: () -> String) -> Problem {
        switch error.status {
        case .notFound where !MethodNotAllowed.served.contains(method):
            // A method no route serves (TRACE, PROPFIND): 405 with the methods the path
            // serves, as OPTIONS there answers (RFC 9110: Allow names the target's methods).
            return MethodNotAllowed.problem(method, allow: allow())
        case .notFound:
            return Problem(.notFound, detail: ProblemType.notFound.documentation)
        case .contentTooLarge:
            return Problem(.bodyTooLarge, detail: ProblemType.bodyTooLarge.documentation)
        case .methodNotAllowed:
            return Problem(
                .methodNotAllowed,
                detail: ProblemType.methodNotAllowed.documentation,
                headers: error.headers
            )
        default:
            let code = error.status.code
            let slug = code >= 500 ? ProblemType.internalError.slug : ProblemType.badRequest.slug
            return Problem(
                status: error.status,
                slug: slug,
                title: error.status.reasonPhrase,
                detail: error.status.reasonPhrase,
                headers: error.headers
            )
        }
    }
}
