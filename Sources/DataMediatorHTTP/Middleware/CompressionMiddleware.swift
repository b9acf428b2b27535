import CompressNIO
import Foundation
import HTTPTypes
import Hummingbird
import Synchronization

/// Answers in gzip to a client that accepts it (`Accept-Encoding`, RFC 9110 12.5.3): pages,
/// descriptions, changes, the OpenAPI document and the explorer's files, which shrink to a
/// fifth or less; never an event stream, whose events must arrive as they are written.
///
/// A gzip answer is another representation, so its strong `ETag` is the identity answer's
/// with `-gzip` inside the quotes; `If-None-Match` and `If-Match` naming either form match
/// (the routes see the identity form), and every answer that could be compressed says
/// `Vary: Accept-Encoding` for caches. Whether to compress does not depend on the body's
/// size, so one URL's `ETag` for one client is always of the same form, a `304` included.
///
/// Hummingbird's own compression middleware (hummingbird-compression) is not among the
/// packages this project can use; this one compresses with compress-nio, the library that
/// one is built on.
struct CompressionMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The suffix of a gzip answer's entity tag, inside its quotes.
    static var tagSuffix: String { "-gzip" }

    /// zlib's settings: the fastest level, an 8 KiB window and memory level 6 instead of
    /// 32 KiB and 8, whose state (some 256 KiB, set up for every answer) cost a 20-item page
    /// more than compressing it (docs/performance.md); pages still shrink 4-6 times.
    static var zlib: ZlibConfiguration {
        ZlibConfiguration(windowSize: .window32k, compressionLevel: .fastestCompression, memoryLevel: .memory32K)
    }

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let gzip = Self.acceptsGzip(request.headers[values: .acceptEncoding])
        var response = try await next(Self.identityTags(of: request), context)
        guard Self.isCompressible(response) else { return response }
        Self.addVary(to: &response.headers)
        guard gzip else { return response }
        if let tag = response.headers[.eTag] { response.headers[.eTag] = Self.gzipTag(tag) }
        guard response.status != .notModified else { return response }
        var body = try await Self.bytes(of: response.body)
        response.body = ResponseBody(byteBuffer: try body.compress(with: .gzip(configuration: Self.zlib)))
        response.headers[.contentEncoding] = "gzip"
        return response
    }

    /// Whether `values` of `Accept-Encoding` accept gzip: named (or `x-gzip`) with a
    /// weight above 0, or `*` above 0 when gzip is not named.
    static func acceptsGzip(_ values: [String]) -> Bool {
        var gzip: Double?
        var any: Double?
        for (coding, weight) in QualityValues.members(of: values) {
            switch coding {
            case "gzip", "x-gzip": gzip = max(gzip ?? 0, weight)
            case "*": any = weight
            default: break
            }
        }
        return (gzip ?? any ?? 0) > 0
    }

    /// Whether the answer is one this middleware may compress: a body of a text type that
    /// is not an event stream, and not already encoded; or a `304`, which stands for such an
    /// answer (every answer here with an `ETag` is one).
    private static func isCompressible(_ response: Response) -> Bool {
        if response.status == .notModified { return true }
        guard response.headers[.contentEncoding] == nil, response.status != .noContent,
            let given = response.headers[.contentType]
        else { return false }
        // The routes' own types are lowercase; lowercasing (a copy) is left to any other.
        let type = given.hasPrefix("application/json") ? given : given.lowercased()
        if type.hasPrefix("text/event-stream") { return false }
        return type.hasPrefix("application/json") || type.hasPrefix("application/problem+json")
            || type.hasPrefix("application/yaml") || type.hasPrefix("text/")
    }

    /// Adds `Vary: Accept-Encoding` unless a `Vary` already names it (or is `*`). Every
    /// page answer passes here, most with no `Vary` yet: that case adds one field and
    /// splits nothing.
    private static func addVary(to headers: inout HTTPFields) {
        let values = headers[values: .vary]
        let named = values.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
        if named.contains(where: { $0.caseInsensitiveCompare("Accept-Encoding") == .orderedSame || $0 == "*" }) {
            return
        }
        headers.append(HTTPField(name: .vary, value: "Accept-Encoding"))
    }

    /// `"tag"` as the gzip answer's tag, `"tag-gzip"` (a weak tag keeps its `W/`).
    static func gzipTag(_ tag: String) -> String {
        guard tag.hasSuffix("\""), !tag.hasSuffix("\(tagSuffix)\"") else { return tag }
        return String(tag.dropLast()) + tagSuffix + "\""
    }

    /// `request` with every gzip entity tag of `If-None-Match` and `If-Match` written as
    /// the identity answer's, which the routes compare.
    private static func identityTags(of request: Request) -> Request {
        guard request.headers.contains(.ifNoneMatch) || request.headers.contains(.ifMatch) else { return request }
        let conditional = request.headers[values: .ifNoneMatch] + request.headers[values: .ifMatch]
        guard conditional.contains(where: { $0.contains("\(tagSuffix)\"") }) else { return request }
        var head = request.head
        for name in [HTTPField.Name.ifNoneMatch, .ifMatch] {
            let values = head.headerFields[values: name]
            guard !values.isEmpty else { continue }
            head.headerFields[values: name] = values.map { $0.replacingOccurrences(of: "\(tagSuffix)\"", with: "\"") }
        }
        return Request(head: head, body: request.body)
    }

    /// The whole body, as written.
    private static func bytes(of body: ResponseBody) async throws -> ByteBuffer {
        let collector = BodyCollector()
        try await body.write(collector)
        return collector.buffer.withLock { $0 }
    }
}

/// A response body writer that keeps what is written.
private final class BodyCollector: ResponseBodyWriter, Sendable {
    let buffer = Mutex(ByteBuffer())

    func write(_ part: ByteBuffer) async throws {
        buffer.withLock { buffer in
            var part = part
            buffer.writeBuffer(&part)
        }
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
