import HTTPTypes
import Hummingbird

/// An error that answers as the error it wraps, with some headers set on that answer: a
/// middleware that adds headers to every answer adds them this way to an error it lets through,
/// so the error still reaches the middleware that counts it.
struct HeaderedError: HTTPResponseError {
    /// The error whose answer this is; one that is not an ``HTTPResponseError`` answers an
    /// internal-error problem.
    let base: any Error
    /// The headers set on the answer, replacing any of the same name.
    let headers: HTTPFields

    var status: HTTPResponse.Status { (base as? any HTTPResponseError)?.status ?? .internalServerError }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        let error = base as? any HTTPResponseError ?? Problem.internalError
        var response = try error.response(from: request, context: context)
        for field in headers {
            response.headers[field.name] = field.value
        }
        return response
    }
}
