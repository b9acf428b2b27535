import Foundation
import HTTPTypes
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
///   6.1 and 6.3: `400` when `chunked` is not last or the request is HTTP/1.0, `501` for a
///   coding it does not decode).
/// - A request that closes its connection (`close` in any case, in a list or a second
///   field, RFC 9110 7.6.1) gets its `Connection` field as exactly `close`, which is what
///   the framework reads: no request after it is answered (RFC 9112 9.6). So does an
///   HTTP/1.0 request without `Connection: keep-alive` (RFC 9112
///   9.3): its client reads the answer until the connection closes, which the answer's
///   `HTTP/1.1` would otherwise keep open. Answers say what happens to their connection:
///   `Connection: keep-alive` to an HTTP/1.0 client that asked for it (else it would wait
///   for a close), `Connection: close` where the connection closes after them (RFC 9112 9.6).
/// - An answer to an HTTP/1.0 request whose length is not known at its start (an event
///   stream) is sent as `HTTP/1.0` and ends with the connection's close: HTTP/1.0 has no
///   chunked coding, and a server MUST NOT send one to it (RFC 9112 6.1).
///
/// A refused request goes on as a parse error, so the requests before it on the connection
/// are answered first and it is answered as the parser's errors are (a problem, then the
/// connection is closed); nothing after it is read.
final class RequestHeadCheck: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// The event sent just before the parse error, telling ``ConnectionGuard`` the answer
    /// and the path it is about (its `instance`).
    struct Refusal {
        let problem: Problem
        let instance: String?
        /// Whether the refused request is a `CONNECT`, whose answer NIO's encoder sends
        /// without a body.
        var isConnect = false
    }

    /// The event sent before a head whose body (declared over the limit, or a write's
    /// without a token) is not asked for with `100 Continue`: its client sends none, so its
    /// answer closes the connection.
    struct ContinueWithheld {}

    /// The largest body the routes read: a body declared larger is refused (`413`) from
    /// its head, so it is not asked for with `100 Continue`.
    private let maximumBodySize: Int
    private var refused = false
    /// What each request read whose answer has not ended still needs of `Expect:
    /// 100-continue`, in request order: a `100 Continue` is written only when no answer is
    /// before its request's, so that it cannot land inside an earlier answer; one pipelined
    /// behind others is told (or its refusal announced) once the answer before it ends.
    private var unanswered: [ContinueAnswer] = []

    /// What a request that waits for `100 Continue` gets when its turn comes.
    private enum ContinueAnswer {
        /// Nothing: it asked for none, or has been answered.
        case none
        /// `100 Continue`: its body is wanted.
        case interim
        /// No `100 Continue`: its body is refused from its head, and its answer closes.
        case withheld
    }
    /// What each answer to come says of its connection, in request order: `keep-alive` to
    /// an HTTP/1.0 client that asked for it, `close` where the connection closes after it
    /// (RFC 9112 9.3, 9.6), nothing otherwise.
    private var connectionFields: [(field: String?, http10: Bool)] = []
    /// Whether the connection closes once the answer being written ends (an answer to an
    /// HTTP/1.0 request that the close delimits).
    private var closeAfterAnswer = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        guard case .head(var head) = unwrapInboundIn(data) else {
            // A body that comes unasked needs no `100 Continue` (RFC 9110 10.1.1).
            if case .body = unwrapInboundIn(data), unanswered.last == .interim {
                unanswered[unanswered.count - 1] = .none
            }
            context.fireChannelRead(data)
            return
        }
        if let problem = Self.problem(with: head) {
            refused = true
            let path = head.uri.prefix { $0 != "?" && $0 != "#" }
            // A path that is no URI (it holds a character a URI never does) is named nowhere.
            let instance =
                path.hasPrefix("/") && !path.utf8.contains(where: Self.isRefusedInTarget) ? String(path) : nil
            context.fireUserInboundEventTriggered(
                Refusal(problem: problem, instance: instance, isConnect: head.method == .CONNECT)
            )
            context.fireErrorCaught(HTTPParserError.invalidHeaderToken)
            return
        }
        if head.uri.utf8.contains(UInt8(ascii: "%")) { head.uri = Self.normalized(head.uri) }
        // NIO's parser reads nothing after a request that asks to upgrade its connection
        // (RFC 9110 7.8: `Connection: upgrade` and `Upgrade`), for the handler that would
        // take the connection over; no route upgrades, so the request is answered in HTTP/1.1
        // (as the RFC lets a server) and the connection closed after it, not left unread.
        let closes = !head.isKeepAlive || Self.asksToUpgrade(head)
        let http10 = head.version == .http1_0
        connectionFields.append((closes ? "close" : http10 ? "keep-alive" : nil, http10))
        var expects = ContinueAnswer.none
        if Self.expectsContinue(head) {
            // A body declared over the limit, a write's without a token or of another media
            // type than JSON, or a `PUT`'s part (`Content-Range`) is not asked for: the route
            // answers `413`, `401`, `415` or `400` from the head and closes, and the client
            // sends nothing it would throw away.
            let refused =
                Self.declaresMore(than: maximumBodySize, head) || Self.lacksCredentials(head) || Self.sendsNoJSON(head)
                || Self.putsPart(head)
            expects = refused ? .withheld : .interim
            // Its `100 Continue` is this handler's to send: the head goes on without that
            // expectation (others stay), so that what is after it reads the body as one
            // that comes unasked (``ClientShareMiddleware`` reads a credentialed write's
            // before its turn). A withheld one keeps it: its body is not to be waited for.
            if !refused {
                let others = head.headers[canonicalForm: "Expect"].filter { $0.lowercased() != "100-continue" }
                head.headers.remove(name: "Expect")
                for other in others { head.headers.add(name: "Expect", value: String(other)) }
            }
        }
        unanswered.append(expects)
        if unanswered.count == 1 { answerContinue(context, version: head.version) }
        // The framework ends a connection after a request whose `Connection` field is
        // exactly `close`; NIO reads the field as RFC 9110 7.6.1 says.
        if closes { head.headers.replaceOrAdd(name: "Connection", value: "close") }
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            if !unanswered.isEmpty { unanswered.removeFirst() }
            if closeAfterAnswer {
                closeAfterAnswer = false
                let channel = context.channel
                context.writeAndFlush(data).whenComplete { result in
                    promise?.completeWith(result)
                    channel.close(promise: nil)
                }
                return
            }
            context.write(data, promise: promise)
            answerContinue(context, version: .http1_1)
            return
        }
        guard case .head(var head) = unwrapOutboundIn(data), head.status.code >= 200, !connectionFields.isEmpty else {
            context.write(data, promise: promise)
            return
        }
        let (field, http10) = connectionFields.removeFirst()
        var changed = false
        let delimitedByClose =
            http10 && !head.headers.contains(name: "Content-Length") && head.status != .noContent
            && head.status != .notModified
        if delimitedByClose {
            // Without a length, NIO frames an HTTP/1.0 answer by the connection's close.
            head.version = .http1_0
            head.headers.remove(name: "Transfer-Encoding")
            head.headers.remove(name: "Connection")
            head.headers.add(name: "Connection", value: "close")
            closeAfterAnswer = true
            changed = true
        } else if let field, !head.headers.contains(name: "Connection") {
            head.headers.add(name: "Connection", value: field)
            changed = true
        }
        context.write(changed ? wrapOutboundOut(.head(head)) : data, promise: promise)
    }

    /// `target` with the percent-encoded letters, digits, `-`, `_` and `~` of its path
    /// decoded (RFC 3986 6.2.2.2: they are the same URI), so that `/h%65alth` is routed as
    /// `/health`; `.` stays encoded (`%2E%2E` is an id, not a dot segment), and so does
    /// the query.
    static func normalized(_ target: String) -> String {
        var bytes = Array(target.utf8)
        let end = bytes.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.count
        var index = 0
        var limit = end
        while index + 2 < limit {
            if bytes[index] == UInt8(ascii: "%"), let high = Self.hexValue(bytes[index + 1]),
                let low = Self.hexValue(bytes[index + 2])
            {
                let byte = high << 4 | low
                let unreserved =
                    (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
                if unreserved {
                    bytes.replaceSubrange(index...(index + 2), with: [byte])
                    limit -= 2
                }
            }
            index += 1
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    init(maximumBodySize: Int) {
        self.maximumBodySize = maximumBodySize
    }

    /// Whether `head`'s `Content-Length` declares a body larger than `limit`.
    static func declaresMore(than limit: Int, _ head: HTTPRequestHead) -> Bool {
        head.headers["Content-Length"].contains {
            Int($0.trimmingCharacters(in: .whitespaces)).map { $0 > limit } ?? false
        }
    }

    /// Whether `head` sends a body without `Authorization`: every route that reads a body
    /// is a write, and refuses it (`401`) before reading it.
    static func lacksCredentials(_ head: HTTPRequestHead) -> Bool {
        [.POST, .PUT, .PATCH].contains(head.method) && !head.headers.contains(name: "Authorization")
    }

    /// Whether `head` sends a body whose (first) `Content-Type` is missing or not JSON, as the
    /// routes read it: every write refuses it (`415`, ``WriteRoutes/isJSON(_:)``) before
    /// reading it.
    static func sendsNoJSON(_ head: HTTPRequestHead) -> Bool {
        [.POST, .PUT, .PATCH].contains(head.method)
            && head.headers["Content-Type"].first.map(WriteRoutes.isJSON) != true
    }

    /// Whether `head` is a `PUT` of a part (`Content-Range`), which the write route refuses
    /// (`400`, RFC 9110 14.5) before reading its body.
    static func putsPart(_ head: HTTPRequestHead) -> Bool {
        head.method == .PUT && head.headers.contains(name: "Content-Range")
    }

    /// Tells the request whose answer is next what it waits for, if it waits for
    /// `100 Continue` (RFC 9110 10.1.1: a server MUST answer it at once, with `100
    /// Continue` or the final status; the routes read the body only after their checks,
    /// so the client would wait, curl a second, before sending it). A refused body is
    /// announced to ``ConnectionGuard``, which closes the connection after its answer.
    private func answerContinue(_ context: ChannelHandlerContext, version: HTTPVersion) {
        guard let next = unanswered.first, next != .none else { return }
        unanswered[0] = .none
        if next == .withheld {
            context.fireUserInboundEventTriggered(ContinueWithheld())
        } else {
            let interim = HTTPResponseHead(version: version, status: .continue)
            context.writeAndFlush(wrapOutboundOut(.head(interim)), promise: nil)
        }
    }

    /// Whether `head` asks to change its connection's protocol (an `Upgrade` field named in
    /// `Connection`), which NIO's parser reads as the last request on the connection.
    static func asksToUpgrade(_ head: HTTPRequestHead) -> Bool {
        head.headers.contains(name: "Upgrade")
            && head.headers[canonicalForm: "Connection"].contains { $0.lowercased() == "upgrade" }
    }

    /// Whether `head` is an HTTP/1.1 request that expects `100-continue`, alone or in a
    /// list (`Expect` is one, RFC 9110 10.1.1; the other members are expectations this
    /// server ignores, as it may). An HTTP/1.0 one's expectation is ignored.
    static func expectsContinue(_ head: HTTPRequestHead) -> Bool {
        guard head.version.major == 1, head.version.minor >= 1 else { return false }
        return head.headers[canonicalForm: "Expect"].contains { $0.lowercased() == "100-continue" }
    }

    /// What is wrong with `head`'s method, `Host` or `Transfer-Encoding` fields, if anything.
    static func problem(with head: HTTPRequestHead) -> Problem? {
        if head.method == .CONNECT {
            // No route tunnels; answered here, with the connection closed after it: a
            // client that meant to tunnel sends what it tunnels right after its head.
            return Problem(
                .methodNotAllowed,
                detail: "CONNECT is not served here: this server is no proxy. The connection is closed.",
                headers: [.allow: MethodNotAllowed.allow]
            )
        }
        if let target = targetProblem(head) { return target }
        let hosts = head.headers["Host"]
        let needsHost = head.version.major > 1 || (head.version.major == 1 && head.version.minor >= 1)
        guard hosts.count == 1 || (hosts.isEmpty && !needsHost), hosts.allSatisfy(HostField.isValid) else {
            return .hostRefused
        }
        let transfer = head.headers["Transfer-Encoding"]
        if !transfer.isEmpty, !needsHost {
            // RFC 9112 6.1: HTTP/1.0 has no transfer codings; such framing is faulty.
            return Problem(
                .badRequest,
                detail: "An HTTP/1.0 request cannot frame its body with 'Transfer-Encoding'; send "
                    + "'Content-Length'. The connection is closed."
            )
        }
        return transferProblem(transfer)
    }

    /// RFC 9112 3.2: a request target is a path (and query), a whole URI, `*` for
    /// `OPTIONS` only, or an authority for `CONNECT` (refused before); a fragment is never
    /// part of one (a client keeps it to itself). Such a target is a bad request, not a
    /// path no route has.
    private static func targetProblem(_ head: HTTPRequestHead) -> Problem? {
        if head.uri == "*", head.method != .OPTIONS {
            return Problem(
                .badRequest,
                detail: "The request target '*' is for OPTIONS only; name a path. The connection is closed."
            )
        }
        // One pass over the bytes (this runs on the event loop, for every request).
        for byte in head.uri.utf8 {
            if byte == UInt8(ascii: "#") {
                return Problem(
                    .badRequest,
                    detail: "A request target holds no fragment ('#…'); send the path and query only. "
                        + "The connection is closed."
                )
            }
            if isRefusedInTarget(byte) {
                return Problem(
                    .badRequest,
                    detail: "The request target holds '\(Character(Unicode.Scalar(byte)))', which a URI holds only "
                        + "percent-encoded (RFC 3986); send it as %\(String(byte, radix: 16, uppercase: true)). "
                        + "The connection is closed."
                )
            }
        }
        return nil
    }

    /// Whether `byte` is a printable character that RFC 3986 allows nowhere in a URI
    /// unencoded: `"`, `<`, `>`, `\`, `^`, a backtick, `{`, `|`, `}` (RFC 9112 3.2: such a
    /// target is a bad request, not a path to look up). Controls, spaces and bytes past
    /// ASCII are refused by the parser already; `[` and `]`, which a URI holds only in a host,
    /// are let through in a query, where clients send them.
    static func isRefusedInTarget(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\\"), UInt8(ascii: "^"),
            UInt8(ascii: "`"), UInt8(ascii: "{"), UInt8(ascii: "|"), UInt8(ascii: "}"):
            return true
        default: return false
        }
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
}
