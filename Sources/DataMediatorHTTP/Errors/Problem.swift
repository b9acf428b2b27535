import DataMediator
import Hummingbird

/// An error answer in RFC 9457 form (`application/problem+json`), with a stable `type` per
/// kind of error and a `detail` safe to show.
///
/// Only this target turns errors into responses: the core's ``DataMediatorError`` codes
/// map to a problem type here, and anything unexpected becomes an `internal-error` that
/// reveals nothing.
public struct Problem: HTTPResponseError, Sendable {
    /// The HTTP status.
    public let status: HTTPResponse.Status
    /// The problem type's short name; `type` is `/problems/<slug>`.
    public let slug: String
    /// A short, fixed summary of the problem type.
    public let title: String
    /// What went wrong in this occurrence, and how to fix it.
    public let detail: String
    /// Extra headers, e.g. `Allow` on a 405.
    public let headers: HTTPFields
    /// For `invalid-item`: each bad field, written as the `errors` member.
    public let fieldProblems: [FieldProblem]

    /// Creates a problem.
    public init(
        status: HTTPResponse.Status,
        slug: String,
        title: String,
        detail: String,
        headers: HTTPFields = [:],
        fieldProblems: [FieldProblem] = []
    ) {
        self.status = status
        self.slug = slug
        self.title = title
        self.detail = detail
        self.headers = headers
        self.fieldProblems = fieldProblems
    }

    /// The problem for a contract error.
    public init(_ error: DataMediatorError) {
        let kind = ProblemType.forCode[error.code] ?? ProblemType.badRequest
        // A read-only list answers which methods it does serve; a source that cannot be
        // read now says when to try again.
        let headers: HTTPFields
        switch error.code {
        case .readOnly: headers = [.allow: MethodNotAllowed.allow]
        case .unavailable: headers = [.retryAfter: "1"]
        // RFC 6750: a request with a token that does not do answers `invalid_token`.
        case .unauthorized: headers = BearerChallenge.invalidToken(error.message)
        default: headers = [:]
        }
        self.init(
            status: kind.status,
            slug: kind.slug,
            title: kind.title,
            detail: error.message,
            headers: headers,
            fieldProblems: error.fieldProblems
        )
    }

    /// The problem of a known kind.
    public init(_ kind: ProblemType, detail: String, headers: HTTPFields = [:]) {
        self.init(status: kind.status, slug: kind.slug, title: kind.title, detail: detail, headers: headers)
    }

    /// The answer to an error nobody expected: a 500 that reveals nothing internal.
    static var internalError: Problem { Problem(.internalError, detail: ProblemType.internalError.documentation) }

    /// The problem's `type` URI reference.
    public var type: String { ProblemType.path(for: slug) }

    /// The problem as a response: the JSON body with `instance` set to the request's path.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        Response(
            status: status,
            headers: fields,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: body(instance: request.uri.path)))
        )
    }

    /// The answer's headers: the problem's own, its media type, and no caching.
    var fields: HTTPFields {
        var fields = headers
        fields[.contentType] = "application/problem+json"
        fields[.cacheControl] = "no-store"
        return fields
    }

    /// The problem's JSON text; without `instance` when there is none (a request that could
    /// not be read has no path).
    func body(instance: String?) -> [UInt8] {
        var writer = JSONWriter(capacity: 256)
        writer.raw("{\"type\":")
        writer.write(type)
        writer.raw(",\"title\":")
        writer.write(title)
        writer.raw(",\"status\":")
        writer.write(Int(status.code))
        writer.raw(",\"detail\":")
        writer.write(detail)
        if let instance {
            writer.raw(",\"instance\":")
            writer.write(instance)
        }
        if !fieldProblems.isEmpty {
            writer.raw(",\"errors\":[")
            for (index, problem) in fieldProblems.enumerated() {
                writer.separator(index)
                writer.raw("{\"field\":")
                writer.write(problem.field)
                writer.raw(",\"detail\":")
                writer.write(problem.detail)
                writer.raw("}")
            }
            writer.raw("]")
        }
        writer.raw("}")
        return writer.bytes
    }
}
