import NIOCore
import NIOHTTP1

/// Reads what the conversion to HTTP types loses of a request head: its version and every
/// `Host` field. It sits before that conversion (``ConnectionGuard`` puts it there).
///
/// - It refuses a request whose `Host` breaks RFC 9112 3.2: an HTTP/1.1 request without
///   one, any request with more than one, or one that is not a host and port. The server
///   MUST answer those `400`: a request that names no host, or two, cannot be told apart
///   from one meant for another server behind the same address. A refused request goes on
///   as a parse error, so the requests before it on the connection are answered first and
///   it is answered as the parser's errors are (a problem, ``Problem/hostRefused``, then
///   the connection is closed); nothing after it is read.
/// - An HTTP/1.0 request without `Connection: keep-alive` gets `Connection: close` (RFC 9112
///   9.3): its client reads the answer until the connection closes, which the answer's
///   `HTTP/1.1` would otherwise keep open.
final class RequestHeadCheck: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    /// The event sent just before the parse error, telling ``ConnectionGuard`` why.
    struct Refusal {}

    private var refused = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        guard case .head(var head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        guard Self.accepts(head) else {
            refused = true
            context.fireUserInboundEventTriggered(Refusal())
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

    /// Whether `head` has the `Host` fields RFC 9112 asks for.
    static func accepts(_ head: HTTPRequestHead) -> Bool {
        let hosts = head.headers["Host"]
        let needsHost = head.version.major > 1 || (head.version.major == 1 && head.version.minor >= 1)
        guard hosts.count == 1 || (hosts.isEmpty && !needsHost) else { return false }
        return hosts.allSatisfy(isHost)
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
