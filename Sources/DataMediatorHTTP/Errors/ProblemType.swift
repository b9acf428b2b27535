import DataMediator
import HTTPTypes

/// A kind of problem: its slug (the last part of its `type`), status, title and the
/// documentation `GET /problems/{slug}` serves.
public struct ProblemType: Sendable, Hashable {
    /// The short name, e.g. `unknown-list`.
    public let slug: String
    /// The HTTP status it answers with.
    public let status: HTTPResponse.Status
    /// A fixed summary.
    public let title: String
    /// When it happens and what a client should do.
    public let documentation: String

    /// No list of that name.
    public static let unknownList = ProblemType(
        "unknown-list",
        .notFound,
        "Unknown list",
        "The list named in the path does not exist. GET /lists names every list."
    )
    /// No view of that name.
    public static let unknownView = ProblemType(
        "unknown-view",
        .notFound,
        "Unknown view",
        "The 'view' parameter names no view of the list. GET /lists/{list} describes its views; omit 'view' for the default."
    )
    /// No item of that id in the view.
    public static let unknownItem = ProblemType(
        "unknown-item",
        .notFound,
        "Unknown item",
        "No item with that id is in the view (it may not exist, or the view's filter excludes it)."
    )
    /// No such route.
    public static let notFound = ProblemType(
        "not-found",
        .notFound,
        "Not found",
        "No resource is at this path. GET /openapi.yaml describes every route."
    )
    /// A bad `limit`.
    public static let badLimit = ProblemType(
        "bad-limit",
        .badRequest,
        "Bad limit",
        "'limit' must be a whole number of at least 1, given once; numbers above the list's maximum are clamped to it."
    )
    /// A bad cursor.
    public static let badCursor = ProblemType(
        "bad-cursor",
        .badRequest,
        "Bad cursor",
        "The cursor is empty, malformed, changed, truncated, forged or given twice. Pass a page's 'next' unchanged, or omit 'cursor' to reload from the start."
    )
    /// A cursor of another list or view.
    public static let cursorMismatch = ProblemType(
        "cursor-mismatch",
        .badRequest,
        "Cursor of another list or view",
        "The cursor was issued for another list or view. Use it with the list and view it came from."
    )
    /// Another bad parameter.
    public static let badRequest = ProblemType(
        "bad-request",
        .badRequest,
        "Bad request",
        "A parameter of the request is not acceptable; 'detail' says which."
    )
    /// A view's parameter that is missing, given twice, or not of its field's type; or
    /// `around` empty, given twice or given with `cursor`.
    public static let badParameter = ProblemType(
        "bad-parameter",
        .badRequest,
        "Bad parameter",
        "A parameter of the view is missing, given twice, or not of its field's type, or 'around' is empty, "
            + "given twice or given with 'cursor'; 'detail' names it."
    )
    /// A query parameter the route and the view do not take.
    public static let unknownParameter = ProblemType(
        "unknown-parameter",
        .badRequest,
        "Unknown parameter",
        "The request names a query parameter that neither the route nor the view takes; 'detail' lists those it takes."
    )
    /// A method the route does not serve.
    public static let methodNotAllowed = ProblemType(
        "method-not-allowed",
        .methodNotAllowed,
        "Method not allowed",
        "The route does not serve this method; the 'Allow' header lists those it does."
    )
    /// A request whose line and headers are larger than the server reads.
    public static let headersTooLarge = ProblemType(
        "headers-too-large",
        .requestHeaderFieldsTooLarge,
        "Request header fields too large",
        "The request line and headers together (a long URI counts) are larger than this server reads "
            + "(DATA_MEDIATOR_MAX_HEADER_BYTES, 16 KiB by default), or hold more than "
            + "\(ServerLimits.maximumHeaderFields) header fields; the connection is closed. Send less."
    )
    /// A request method the server does not know at all (one its HTTP parser cannot read).
    public static let notImplemented = ProblemType(
        "not-implemented",
        .notImplemented,
        "Not implemented",
        "The request's method is not one this server knows; it serves GET, HEAD, OPTIONS, POST, PUT, PATCH and "
            + "DELETE. The connection is closed."
    )
    /// A request in an HTTP version the server does not speak (its parser reads HTTP/1.0
    /// and HTTP/1.1 only).
    public static let httpVersionNotSupported = ProblemType(
        "http-version-not-supported",
        .httpVersionNotSupported,
        "HTTP version not supported",
        "The request line names an HTTP version this server does not speak; send HTTP/1.1 (or HTTP/1.0). "
            + "The connection is closed."
    )
    /// A source is not open.
    public static let notReady = ProblemType(
        "not-ready",
        .serviceUnavailable,
        "Not ready",
        "A data source cannot be read right now. Retry later."
    )
    /// A request whose body did not come whole in time.
    public static let requestTimeout = ProblemType(
        "request-timeout",
        .init(code: 408),
        "Request timeout",
        "The request's body did not come whole within the time the server waits for it "
            + "(DATA_MEDIATOR_REQUEST_BODY_TIMEOUT_SECONDS): nothing was stored, and the connection is closed. "
            + "Send the request again, whole."
    )
    /// A request whose body was awaited longest when a connection beyond the limit came.
    public static let tooManyConnections = ProblemType(
        "too-many-connections",
        .serviceUnavailable,
        "Too many connections",
        "The server holds as many connections as it keeps, none idle, and this request's body was the one awaited "
            + "longest: another connection took its place. Nothing was stored, and the connection is closed. Retry "
            + "after the `Retry-After` seconds."
    )
    /// A write whose commit the store did not confirm.
    public static let outcomeUnknown = ProblemType(
        "outcome-unknown",
        .internalServerError,
        "Write outcome unknown",
        "The store did not confirm the write's commit: it may or may not be stored. Read the item back, or retry with the same Idempotency-Key (a POST without one may store a second item)."
    )
    /// Too many event streams are open.
    public static let tooManyStreams = ProblemType(
        "too-many-streams",
        .serviceUnavailable,
        "Too many streams",
        "The server keeps as many event streams open as it is configured to. Retry after the `Retry-After` seconds, or read `/changes`."
    )
    /// A client over its share of the costly routes.
    public static let tooManyRequests = ProblemType(
        "too-many-requests",
        .tooManyRequests,
        "Too many requests",
        "This client (its token, or its address without one) has as many item lookups, section counts and change reads in flight as one client may, or sent as many in the last second. Retry after the `Retry-After` seconds; other clients are not held up."
    )
    /// Anything unexpected.
    public static let internalError = ProblemType(
        "internal-error",
        .internalServerError,
        "Internal server error",
        "The server failed to answer. The failure is logged with the request's id; nothing about it is revealed here."
    )

    /// No or a wrong bearer token.
    public static let unauthorized = ProblemType(
        "unauthorized",
        .unauthorized,
        "Unauthorized",
        "Writes need 'Authorization: Bearer <token>' with a token the server is configured with; so do reads "
            + "when read tokens are configured (a scoped list's a JWT naming the caller's slice), and /metrics when "
            + "metrics tokens are."
    )
    /// Writes are not enabled.
    public static let forbidden = ProblemType(
        "forbidden",
        .forbidden,
        "Forbidden",
        "Writes are not enabled on this server: no write token is configured."
    )
    /// An item with that id exists.
    public static let conflict = ProblemType(
        "conflict",
        .conflict,
        "Conflict",
        "An item with that id exists. PUT replaces an item; POST only creates."
    )
    /// The body is larger than the server takes.
    public static let bodyTooLarge = ProblemType(
        "body-too-large",
        .contentTooLarge,
        "Body too large",
        "The request body is larger than the server's limit."
    )
    /// The body is not JSON by its media type.
    public static let unsupportedMediaType = ProblemType(
        "unsupported-media-type",
        .unsupportedMediaType,
        "Unsupported media type",
        "Write bodies are 'Content-Type: application/json', sent without a content coding."
    )
    /// The item breaks the list's rules.
    public static let invalidItem = ProblemType(
        "invalid-item",
        .unprocessableContent,
        "Invalid item",
        "The body is JSON but not an item the list takes; 'errors' names each field and what is wrong."
    )

    /// Changes asked since a version that is no longer kept.
    public static let historyGone = ProblemType(
        "history-gone",
        .gone,
        "History gone",
        "The changes since that version are no longer kept (or the version is newer than the list's, after a reset). Reload from the first page and use its 'version'."
    )
    /// An idempotency key reused with another body.
    public static let idempotencyKeyReused = ProblemType(
        "idempotency-key-reused",
        .unprocessableContent,
        "Idempotency key reused",
        "The Idempotency-Key was already used for a create with another body. A retry must send the same body; a new item needs a new key."
    )

    /// A write's `If-Match` or `If-None-Match` does not hold.
    public static let preconditionFailed = ProblemType(
        "precondition-failed",
        .preconditionFailed,
        "Precondition failed",
        "The write's If-Match names no current ETag of the item or list (it changed since; or a PUT's item does not exist: PATCH and DELETE of a missing item stay 404), or its If-None-Match names the current one (or '*' while the item exists). Read the item again (GET /lists/{list}/items/{id}) and decide with what it holds now."
    )

    /// Every problem type the service can answer with.
    public static let all: [ProblemType] = [
        unknownList, unknownView, unknownItem, notFound, badLimit, badCursor, cursorMismatch, badRequest,
        methodNotAllowed, notReady, internalError, unauthorized, forbidden, conflict, bodyTooLarge,
        unsupportedMediaType, invalidItem, historyGone, idempotencyKeyReused, tooManyStreams, badParameter,
        unknownParameter, outcomeUnknown, tooManyRequests, headersTooLarge, notImplemented, preconditionFailed,
        httpVersionNotSupported, requestTimeout, tooManyConnections,
    ]

    static let forCode: [DataMediatorError.Code: ProblemType] = [
        .unknownList: unknownList, .unknownView: unknownView, .unknownItem: unknownItem, .badLimit: badLimit,
        .badCursor: badCursor, .cursorMismatch: cursorMismatch, .badRequest: badRequest, .unavailable: notReady,
        .invalidItem: invalidItem, .conflict: conflict, .readOnly: methodNotAllowed,
        .historyGone: historyGone, .idempotencyKeyReused: idempotencyKeyReused, .badParameter: badParameter,
        .unknownParameter: unknownParameter, .unauthorized: unauthorized, .forbidden: forbidden,
        .outcomeUnknown: outcomeUnknown, .preconditionFailed: preconditionFailed,
    ]

    /// The `type` of a problem with this slug.
    public static func path(for slug: String) -> String { "/problems/" + slug }

    private init(_ slug: String, _ status: HTTPResponse.Status, _ title: String, _ documentation: String) {
        self.slug = slug
        self.status = status
        self.title = title
        self.documentation = documentation
    }
}
