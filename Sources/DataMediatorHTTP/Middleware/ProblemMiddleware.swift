import DataMediator
import HTTPTypes
import Hummingbird
import Logging

/// Makes every error thrown below it one that answers problem+json, and throws it on so
/// that the request middleware counts it with its status: contract errors and problems pass
/// as they are, the framework's own errors (no route, bad request) become the matching
/// problem, and anything else becomes a 500 that is logged at error level and reveals nothing.
struct ProblemMiddleware<Context: RequestContext>: RouterMiddleware {
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
        } catch let error as HTTPError {
            throw Self.problem(for: error, method: request.method)
        } catch {
            context.logger.error("request failed", metadata: ["error": "\(String(reflecting: error))"])
            throw Problem.internalError
        }
    }
    static func problem(for error: HTTPError, method: HTTPRequest.Method) -> Problem {
        switch error.status {
        case .notFound where !MethodNotAllowed.served.contains(method):
            // RFC 9110: a method the server supports for no resource is 501 (a 405 would
            // have to name the target's methods, which the router does not tell).
            return Problem(
                .notImplemented,
                detail: "\(method.rawValue) is served by no route of this service; it serves "
                    + MethodNotAllowed.served.map(\.rawValue).sorted().joined(separator: ", ") + "."
            )
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
