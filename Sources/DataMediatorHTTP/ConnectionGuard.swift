import Foundation
import HTTPTypes
import HummingbirdCore
import Logging
import Metrics
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import Synchronization

/// Closes a connection beyond the limit of its address; makes room for one beyond the
/// limit in all by closing the connection that has waited longest for its next request, or
/// else for the rest of a body (``ConnectionCount/waitingLongest(besides:)``), or closes it
/// when every connection has a request in flight (a refusal is logged, one line each 10 s
/// at most); closes one whose request head does not arrive in time (counted from its first
/// byte, which a ``RequestStartWatch`` before the parser tells; before it, the idle limit
/// holds) or whose body does not (counted from its head), and one whose client closes its side during an event stream (it has gone; the
/// stream ends and gives back its share); answers a write whose body it cuts off (late, or
/// its connection taken by a newcomer) before it closes; reads a connection answered `429`
/// again only after a pause; puts a ``RequestHeadCheck`` before the conversion to HTTP
/// types; and answers a request the HTTP parser could not read with a problem
/// (``Problem/init(unreadable:)``).
///
/// One timer per connection checks the time limit, re-armed when it fires, instead of one
/// timer per request: a busy connection answers thousands of requests a second.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// The server's limits on connections, heads and bodies.
    let limits: ServerLimits
    /// The largest body the routes read (``RequestHeadCheck`` asks for no larger one).
    private let maximumBodySize: Int
    /// The open connections, counted by every guard together.
    let connections: ConnectionCount
    /// The origins whose scripts may read the answers (``CORSOriginsMiddleware``), the
    /// guard's own too.
    let corsOrigins: Set<String>
    /// Whether the connection is counted against the limits.
    var counted = false
    /// The remote address counted under the per-address cap, while it is.
    private var countedAddress: String?
    /// Requests read whose answer has not ended (more than one when pipelined).
    private var inFlight = 0
    /// When the request being read must have arrived: its head, then its body; nil once it
    /// has, while it is answered.
    private var requestDeadline: NIODeadline?
    /// When the armed check fires.
    private var checkAt: NIODeadline?
    /// Tells when the next request's first byte comes.
    private var startWatch: RequestStartWatch?
    /// The answer to the connection's last request, once the parser (or ``RequestHeadCheck``)
    /// could not read it.
    private var unreadable: Problem?
    /// The path of the request ``unreadable`` answers, when its head was read.
    private var unreadableInstance: String?
    /// Whether that request is a `CONNECT` (its answer is written past NIO's encoder), and
    /// whether that answer was written.
    private var unreadableConnect = false
    private var answeredPastEncoder = false
    private var check: Scheduled<Void>?
    /// Whether an event stream is being answered, and whether the client closed its side.
    private var streaming = false
    private var inputClosed = false
    /// Whether the last request read has not come whole (its head read, not its end), what
    /// its answer would name of it, and whether an answer has begun.
    private var reading = false
    private var readRequest = ReadRequest(path: nil, id: "-", method: "-")
    private var answering = false
    /// Whether the request being read awaits a `100 Continue` that will not come (its body
    /// is over the limit), and whether its answer, written before the body, closes.
    private var continueWithheld = false
    private var closesUnread = false
    /// Whether the request being read is late while answers to the requests before it are
    /// still being written: it is answered `408` after them.
    private var cutAfterAnswers = false
    /// Whether a newcomer took its place after it was picked as idle: it closes once answered.
    private var closesWhenAnswered = false
    /// Whether the connection only waits, its answer written, for its client to close.
    private var lingering = false

    /// Until when the connection's reads wait after a `429`, whether one is held, and what
    /// came meanwhile (passed on when the pause ends).
    var pausedUntil: NIODeadline?
    var readHeld = false
    var heldParts: [NIOAny] = []

    let logger: Logger

    init(
        limits: ServerLimits,
        maximumBodySize: Int,
        connections: ConnectionCount,
        corsOrigins: Set<String> = [],
        logger: Logger
    ) {
        self.limits = limits
        self.corsOrigins = corsOrigins
        self.maximumBodySize = maximumBodySize
        self.connections = connections
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if let cap = limits.connectionsPerAddress, let peer = context.channel.remoteAddress?.ipAddress {
            // An IPv6 host holds a whole /64 (``ClientIdentity/network(of:)``).
            let address = ClientIdentity.network(of: peer)
            countedAddress = address
            if !connections.open(from: address, cap: cap) {
                refuse("\(cap) connections from one address, the most one address may open", kind: "address", context)
                return
            }
        }
        let open = connections.value.add(1, ordering: .relaxed).newValue
        counted = true
        if open > limits.maximumConnections {
            // Idle connections held open (by one client, say) must not keep the others out:
            // the one that has waited longest for a request goes; its client opens another
            // when it has one to send.
            guard let idle = connections.waitingLongest(besides: ObjectIdentifier(self)) else {
                refuse("\(limits.maximumConnections) connections, the most in all, each one busy", kind: "all", context)
                return
            }
            // Its own guard closes it, answering first a request whose body it awaits.
            idle.pipeline.fireUserInboundEventTriggered(Evicted())
        }
        // Hummingbird adds a server's own handlers after its conversion to HTTP types only;
        // the Host check needs what is before it.
        let pipeline = context.pipeline.syncOperations
        if let conversion = try? pipeline.handler(type: HTTP1ToHTTPServerCodec.self) {
            try? pipeline.addHandler(RequestHeadCheck(maximumBodySize: maximumBodySize), position: .before(conversion))
        }
        connections.wait(ObjectIdentifier(self), context.channel)
        let watch = RequestStartWatch { [weak self] in
            guard let self else { return }
            deadline(context, .now() + headTimeout)
        }
        startWatch = watch
        try? pipeline.addHandler(watch, position: .first)
        // First of all, so that every close, whoever makes it, lets the answers written leave.
        try? pipeline.addHandler(
            AnswerDrainGuard(idleLimit: limits.idleTimeout, shutdownGrace: limits.shutdownGrace),
            position: .first
        )
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        check?.cancel()
        check = nil
        // The watch's call holds this handler's context, which holds this handler: let go,
        // or every connection's guard, watch and context outlive it.
        startWatch = nil
        stopCounting()
        if let address = countedAddress {
            countedAddress = nil
            connections.close(from: address)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // The rest of a body answered already is read and dropped (RFC 9112 9.6).
        guard !lingering else { return }
        if pausedUntil != nil {
            heldParts.append(data)
            return
        }
        switch unwrapInboundIn(data) {
        case .head(let head):
            let path = head.path?.prefix { $0 != "?" && $0 != "#" }
            readRequest = ReadRequest(
                path: path.map(String.init),
                id: head.headerFields[RequestMiddleware<ClientContext>.field].flatMap(RequestIDs.accepted)
                    ?? RequestIDs.next(),
                method: head.method.rawValue,
                origin: head.headerFields[.origin]
            )
            deadline(context, .now() + bodyTimeout)
            inFlight += 1
            reading = true
            // Until its body has come whole, a connection's one request has done nothing: it
            // may give its place too (after the idle ones), or slow bodies keep all out.
            if inFlight == 1, !closesWhenAnswered {
                connections.wait(ObjectIdentifier(self), context.channel, receiving: true)
            } else {
                connections.stopWaiting(ObjectIdentifier(self))
            }
        case .end:
            requestDeadline = nil
            reading = false
            cutAfterAnswers = false
            connections.stopWaiting(ObjectIdentifier(self))
        case .body: break
        }
        context.fireChannelRead(data)
    }

    /// A client that closes its side during an event stream has gone (an event stream's
    /// client sends nothing more by design): the connection is closed, so the stream ends
    /// now and gives back its share, not at its next write (up to a heartbeat away).
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is RequestHeadCheck.ContinueWithheld {
            continueWithheld = true
            return
        }
        if let refusal = event as? RequestHeadCheck.Refusal {
            unreadable = refusal.problem
            unreadableInstance = refusal.instance
            unreadableConnect = refusal.isConnect
            return
        }
        if event is Evicted {
            // Picked as idle on another connection's event loop, it may have read a whole
            // request since: cut, that request (a write) would be dropped as it runs.
            if inFlight > 0, !reading {
                closesWhenAnswered = true
                stopCounting()
                return
            }
            endRequest(context, .evicted)
            return
        }
        if case .inputClosed = event as? ChannelEvent {
            inputClosed = true
            if streaming || lingering { context.close(promise: nil) }
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let error = error as? HTTPParserError {
            unreadable = unreadable ?? Problem(unreadable: error, beganWithPRI: startWatch?.beganWithPRI == true)
        }
        context.fireErrorCaught(error)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        var data = data
        // The request was answered by the guard (``endRequest(_:_:)``): the framework's late
        // answer to it goes nowhere.
        if lingering {
            promise?.fail(ChannelError.outputClosed)
            return
        }
        if case .head(var head) = unwrapOutboundIn(data) {
            answering = true
            // One that closes once answered says so (RFC 9112 9.6): its client sends no more.
            if closesWhenAnswered {
                head.headerFields[.connection] = "close"
                data = wrapOutboundOut(.head(head))
            }
            if head.status == .tooManyRequests { pauseReads(context) }
            // Its client sends no body (it awaits `100 Continue`), or one too large: the answer closes.
            closesUnread = (continueWithheld || head.status == .contentTooLarge) && reading && inFlight == 1
            continueWithheld = false
            if closesUnread {
                head.headerFields[.connection] = "close"
                context.write(wrapOutboundOut(.head(head)), promise: promise)
                return
            }
        }
        switch (unwrapOutboundIn(data), unreadable) {
        case (.end, _) where answeredPastEncoder:
            // Its answer was written whole; the framework closes the connection after it.
            promise?.succeed()
            return
        case (.end, _) where closesUnread:
            closesUnread = false
            lingering = true
            requestDeadline = nil
            check?.cancel()
            check = Self.linger(context, after: data, promise: promise, for: bodyTimeout)
            // Its client has its answer: a connection beyond the limit takes its place first.
            connections.wait(ObjectIdentifier(self), context.channel)
            return
        case (.end, _):
            streaming = false
            answering = false
            inFlight = max(inFlight - 1, 0)
            context.write(data, promise: promise)
            answered(context)
            return
        case (.head(let head), nil) where head.headerFields[.contentType]?.hasPrefix("text/event-stream") == true:
            // A client that closed its side before its stream began (right after its
            // request) may still read: that stream runs until a write fails.
            streaming = !inputClosed
        case (.head(let head), let problem?) where head.status == .badRequest && head.headerFields[.contentType] == nil:
            // Hummingbird answers a request it could not parse (after the ones before it)
            // with an empty 400 and closes: the answer becomes a problem like every other.
            // Answered as the routes' answers are (RequestMiddleware): an id, the date and
            // server (RFC 9110 6.6.1, 10.2.4), and a line in the log.
            let request = ReadRequest.unread(path: unreadableInstance, connect: unreadableConnect)
            if unreadableConnect {
                answeredPastEncoder = true
                writePastEncoder(context, problem, request: request, promise: promise)
                return
            }
            writeHeadAndBody(context, problem, request: request, promise: promise)
            return
        default:
            break
        }
        context.write(data, promise: promise)
    }

    /// After an answer's end: a pipelined request whose body is still being read keeps its
    /// own deadline (and is answered `408` now when it is late), else the next request's
    /// first byte is awaited (under the idle limit), or nothing while the requests already
    /// read are answered.
    private func answered(_ context: ChannelHandlerContext) {
        guard reading else {
            requestDeadline = nil
            if inFlight == 0 {
                if closesWhenAnswered {
                    context.close(promise: nil)
                    return
                }
                startWatch?.waiting = true
                connections.wait(ObjectIdentifier(self), context.channel)
            }
            return
        }
        guard inFlight == 1 else { return }
        if cutAfterAnswers {
            cutAfterAnswers = false
            endRequest(context, .late(limits.requestBodyTimeout))
        } else if !closesWhenAnswered {
            connections.wait(ObjectIdentifier(self), context.channel, receiving: true)
        }
    }

    /// Sets when the request being read must have come, arming the check earlier if needed.
    private func deadline(_ context: ChannelHandlerContext, _ time: NIODeadline) {
        requestDeadline = time
        if let armed = checkAt, armed <= time { return }
        check?.cancel()
        schedule(context, at: time)
    }

    /// Ends the connection's request: when its body is being read and nothing of its answer
    /// was written (its write has done nothing), answers it with `problem` and closes the
    /// connection's output, then the connection once its client closes or a second later
    /// (closed at once, the client's next bytes would reset the connection and could lose
    /// the answer, RFC 9112 9.6); otherwise closes it. It stops counting against the limits
    /// at once.
    private func endRequest(_ context: ChannelHandlerContext, _ problem: Problem) {
        stopCounting()
        guard reading, inFlight == 1, !answering, !lingering, context.channel.isActive else {
            context.close(promise: nil)
            return
        }
        lingering = true
        requestDeadline = nil
        check?.cancel()
        writeHeadAndBody(context, problem, request: readRequest, promise: nil)
        // The framework's reading of the body ends now, with an error it does not answer.
        context.fireErrorCaught(RequestCut())
        check = Self.linger(context, after: wrapOutboundOut(.end(nil)), promise: nil, for: .seconds(1))
    }

    /// Checks at `time`: closes the connection when its head deadline has passed (answering
    /// a body that did not come whole in time with a `408`, after the answers before it),
    /// else checks again at the deadline (or one timeout later while a request is answered).
    private func schedule(_ context: ChannelHandlerContext, at time: NIODeadline) {
        let channel = context.channel
        checkAt = time
        check = context.eventLoop.assumeIsolated().scheduleTask(deadline: time) { [self] in
            let now = NIODeadline.now()
            checkAt = nil
            guard let deadline = requestDeadline else {
                schedule(context, at: now + headTimeout)
                return
            }
            guard deadline <= now else {
                schedule(context, at: deadline)
                return
            }
            guard reading else {
                // A request head begun and not ended in time (a slowloris), closed without a
                // word to the client: counted, so that it is seen.
                Counter(label: "data_mediator_head_timeouts").increment()
                channel.close(promise: nil)
                return
            }
            if inFlight > 1 && !cutAfterAnswers {
                // Answered after the answers before it, which get a head timeout to end.
                cutAfterAnswers = true
                requestDeadline = now + headTimeout
                schedule(context, at: now + headTimeout)
                return
            }
            endRequest(context, .late(limits.requestBodyTimeout))
        }
    }
}
