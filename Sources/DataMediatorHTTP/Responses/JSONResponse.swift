import Crypto
import DataMediator
import Foundation
import Hummingbird

/// Builds JSON answers with a strong `ETag` over their bytes, and answers `304 Not
/// Modified` when the request's `If-None-Match` already names it.
enum JSONResponse {
    /// The `Cache-Control` of list answers: clients may keep them but must revalidate.
    static let cacheControl = "no-cache"

    /// A `200` (or `status`) JSON answer, or a `304` when `If-None-Match` matches its ETag.
    ///
    /// - Throws: as ``checkIfMatch(_:tag:also:)``.
    static func make(
        _ bytes: [UInt8],
        for request: Request,
        status: HTTPResponse.Status = .ok,
        headers extra: HTTPFields = [:],
        contentType: String = "application/json"
    ) throws -> Response {
        let tag = entityTag(of: bytes)
        try checkIfMatch(request, tag: tag)
        var headers = extra
        headers[.eTag] = tag
        headers[.cacheControl] = cacheControl
        if status == .ok, matches(request.headers[values: .ifNoneMatch], tag) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = contentType
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// A JSON answer of a body already encoded, with its entity tag (``entityTag(of:)``):
    /// `304` when the request's `If-None-Match` names the tag. Its `If-Match` holds for
    /// `itemTag` too: an item lookup's item's own tag, which a write of it answers and a
    /// later write's `If-Match` takes (the read said `412` to the tag a `PUT` had just given).
    ///
    /// - Throws: as ``checkIfMatch(_:tag:also:)``.
    static func make(body: ByteBuffer, tag: String, itemTag: String? = nil, for request: Request) throws -> Response {
        try checkIfMatch(request, tag: tag, also: itemTag)
        var headers: HTTPFields = [.eTag: tag, .cacheControl: cacheControl]
        if matches(request.headers[values: .ifNoneMatch], tag) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = "application/json"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: body))
    }

    /// A read's `If-Match` (RFC 9110 13.1.1, 13.2.2: evaluated before the method, on reads
    /// too): it holds when it is `*` or names `tag` (or `also`; strong comparison).
    ///
    /// - Throws: `precondition-failed` when it names other tags only; `bad-request` when it
    ///   is not `*` alone or a list of entity tags.
    static func checkIfMatch(_ request: Request, tag: String, also: String? = nil) throws {
        guard request.headers.contains(.ifMatch),
            let tags = try WriteConditions.tags(request.headers[values: .ifMatch], weak: false, name: "If-Match"),
            !tags.contains("*"), !tags.contains(tag), !(also.map(tags.contains) ?? false)
        else { return }
        throw DataMediatorError(
            .preconditionFailed,
            tags.isEmpty
                ? WriteCondition.weakOnly : "If-Match: the answer is no longer the one of that ETag (it is \(tag) now)."
        )
    }

    /// A strong entity tag: the first 16 bytes of the body's SHA-256, quoted.
    static func entityTag(of bytes: [UInt8]) -> String {
        EntityTag.of(bytes)
    }

    /// Whether an `If-None-Match` field names `tag` (weak comparison, as RFC 9110 §13.1.2
    /// asks for this header) or is `*`. A malformed field (`*` among tags, a tag without
    /// its quotes) matches nothing, on every read route alike (UntaggedPreconditionMiddleware):
    /// a `304` says the client's copy is current, which a field the server cannot read does
    /// not tell.
    static func matches(_ values: [String], _ tag: String) -> Bool {
        guard let tags = try? WriteConditions.tags(values, weak: true, name: "If-None-Match") else { return false }
        return tags.contains("*") || tags.contains(tag)
    }
}
