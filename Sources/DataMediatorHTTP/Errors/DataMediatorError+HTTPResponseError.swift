import DataMediator
import Hummingbird

/// A contract error answers as its ``Problem``, so it can be thrown up through the
/// middleware (which counts it with its status) and still answer problem+json.
extension DataMediatorError: HTTPResponseError {
    /// The status of the error's problem type.
    public var status: HTTPResponse.Status { Problem(self).status }

    /// The error's problem as a response, its `instance` the request's path.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        try Problem(self).response(from: request, context: context)
    }
}
