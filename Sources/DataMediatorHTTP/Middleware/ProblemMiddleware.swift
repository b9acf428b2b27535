import DataMediator
import HTTPTypes
import Hummingbird
import Logging

/// Turns every error into a problem+json answer: contract errors into their problem type,
/// the framework's own errors (no route, bad request) into the matching one, and anything
/// else into a 500 that is logged at error level and reveals nothing.
struct ProblemMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let problem as Problem {
            return try problem.response(from: request, context: context)
        } catch let error as DataMediatorError {
            return try Problem(error).response(from: request, context: context)
        } catch let error as HTTPError {
            return try Self.problem(for: error, method: request.method).response(from: request, context: context)
        } catch {
            context.logger.error("request failed", metadata: ["error": "\(String(reflecting: error))"])
            return try Problem(.internalError, detail: ProblemType.internalError.documentation)
                .response(from: request, context: context)
        }
    }

    static func problem(for error: HTTPError, method: HTTPRequest.Method) -> Problem {
        switch error.status {
        case .notFound where !MethodNotAllowed.served.contains(method):
            return Problem(
                .methodNotAllowed,
                detail: "\(method.rawValue) is not served by this service.",
                headers: [.allow: MethodNotAllowed.allow]
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
