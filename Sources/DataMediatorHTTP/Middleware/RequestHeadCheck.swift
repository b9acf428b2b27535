import Foundation
import NIOCore
import NIOHTTP1

/// Reads what the conversion to HTTP types loses of a request head (its version and every
/// `Host` field) and what the parser leaves to the server (`Transfer-Encoding`). It sits
/// before that conversion (``ConnectionGuard`` puts it there).
///
/// - It refuses a request whose `Host` breaks RFC 9112 3.2: an HTTP/1.1 request without
///   one, any request with more than one, or one that is not a host and port. The server
///   MUST answer those `400`: a request that names no host, or two, cannot be told apart
///   from one meant for another server behind the same address.
/// - It refuses a body framed by a `Transfer-Encoding` the server cannot read (RFC 9112
///   6.1 and 6.3: `400` when `chunked` is not last, `501` for a coding it does not decode).
/// - An HTTP/1.0 request without `Connection: keep-alive` gets `Connection: close` (RFC 9112
///   9.3): its client reads the answer until the connection closes, which the answer's
///   `HTTP/1.1` would otherwise keep open.
///
/// A refused request goes on as a parse error, so the requests before it on the connection
/// are answered first and it is answered as the parser's errors are (a problem, then the
/// connection is closed); nothing after it is read.
final class RequestHeadCheck: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    /// The event sent just before the parse error, telling ``ConnectionGuard`` the answer.
    struct Refusal {
        let problem: Problem
    }

    private var refused = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        guard case .head(var head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        if let problem = Self.problem(with: head) {
            refused = true
            context.fireUserInboundEventTriggered(Refusal(problem: problem))
            context.fireErrorCaught(HTTPParserError.invalidHeaderToken)
            return
        }
        if head.version == .http1_0, !head.isKeepAlive {
            head.headers.replaceOrAdd(name: "Connection", value: "close")
            context.fireChannelRead(wrapInboundOut(.head(head)))
            return
        }
        context.fireChannelRead(data)
    }

    /// What is wrong with `head`'s `Host` or `Transfer-Encoding` fields, if anything.
    static func problem(with head: HTTPRequestHead) -> Problem? {
        let hosts = head.headers["Host"]
        let needsHost = head.version.major > 1 || (head.version.major == 1 && head.version.minor >= 1)
        guard hosts.count == 1 || (hosts.isEmpty && !needsHost), hosts.allSatisfy(isHost) else {
            return .hostRefused
        }
        return transferProblem(head.headers["Transfer-Encoding"])
    }

    /// RFC 9112 6: a body whose last transfer coding is not `chunked` has no length to
    /// read it by (400, MUST), nor has one chunked twice; one in a coding the server does
    /// not decode (`gzip, chunked`) is `501` (SHOULD), rather than read as if unencoded.
    private static func transferProblem(_ fields: [String]) -> Problem? {
        let codings = fields.flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard !codings.isEmpty else { return nil }
        guard codings.last == "chunked", codings.count(where: { $0 == "chunked" }) == 1 else {
            return Problem(
                .badRequest,
                detail: "The body's 'Transfer-Encoding' does not end with 'chunked' (once), so its length "
                    + "cannot be read; the connection is closed."
            )
        }
        if let coding = codings.first(where: { $0 != "chunked" }) {
            return Problem(
                .notImplemented,
                detail: "The body's transfer coding '\(coding)' is not one this server decodes; send it "
                    + "'chunked' only. The connection is closed."
            )
        }
        return nil
    }

    /// Whether `value` can be `uri-host [":" port]` (RFC 3986: a registered name, an IPv4
    /// address or a bracketed IP literal; empty when the target has no authority): only
    /// their characters, so a space, `/`, `@` or a byte beyond ASCII is refused.
    private static func isHost(_ value: String) -> Bool {
        value.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                true
            default: hostPunctuation.contains(byte)
            }
        }
    }

    private static let hostPunctuation = Set("-._~%!$&'()*+,;=:[]".utf8)
}
