import NIOCore
import NIOHTTPTypes

/// Passes a connection's pipelined request on only once the answer before it has ended and
/// the connection's event loop has polled its sockets since (``PollBarrier``).
///
/// A client can send a hundred requests in one write on each of a hundred connections:
/// the parser reads them all at once, and without this each connection went on to its
/// next request as soon as its answer was handed over, without the event loop ever
/// polling again, so no other client was accepted or read until the whole backlog was
/// answered. With it, each connection answers one pipelined request per poll, and another
/// client's request waits for one round of them at most. A request that comes after the
/// answer before it (the usual case, no pipelining) passes at once; a pipelining client
/// gets its answers about as fast as one that waits for each answer before it sends on.
///
/// What comes after a held request (its body, more requests, the client's half-close, a
/// parser error) is held behind it, in order; reads from the socket wait meanwhile, so a
/// client cannot make the server hold more than one socket read of requests.
final class PipelinedRequestGate: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// Something read and held, in the order it came.
    private enum Held {
        case part(NIOAny)
        case event(Any)
        case error(any Error)
    }

    private var held: [Held] = []
    /// Requests passed on whose answer has not ended.
    private var answering = 0
    /// Whether a socket read was asked for while requests were held.
    private var readHeld = false
    /// Whether a release waits for the loop's next poll.
    private var releasing = false
    private var removed = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if !held.isEmpty {
            held.append(.part(data))
            return
        }
        if case .head = unwrapInboundIn(data) {
            guard answering == 0 else {
                held.append(.part(data))
                return
            }
            answering += 1
        }
        context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        context.fireChannelReadComplete()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard held.isEmpty else { return held.append(.event(event)) }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard held.isEmpty else { return held.append(.error(error)) }
        context.fireErrorCaught(error)
    }

    func read(context: ChannelHandlerContext) {
        guard held.isEmpty else {
            readHeld = true
            return
        }
        context.read()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let ends: Bool
        if case .end = unwrapOutboundIn(data) { ends = true } else { ends = false }
        context.write(data, promise: promise)
        guard ends else { return }
        answering = max(0, answering - 1)
        guard answering == 0, !held.isEmpty, !releasing else { return }
        releasing = true
        PollBarrier.on(context.eventLoop).afterNextPoll { [self] in release(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        removed = true
        held = []
    }

    /// Passes on the next held request and what came with it, up to the request after it.
    private func release(_ context: ChannelHandlerContext) {
        releasing = false
        guard !removed, context.channel.isActive else {
            held = []
            return
        }
        var index = 0
        var passed = false
        while index < held.count {
            if case .part(let data) = held[index], case .head = unwrapInboundIn(data) {
                // The request after it waits for its answer.
                guard answering == 0 else { break }
                answering += 1
            }
            switch held[index] {
            case .part(let data):
                context.fireChannelRead(data)
                passed = true
            case .event(let event): context.fireUserInboundEventTriggered(event)
            case .error(let error): context.fireErrorCaught(error)
            }
            index += 1
        }
        held.removeFirst(index)
        if passed { context.fireChannelReadComplete() }
        if held.isEmpty, readHeld {
            readHeld = false
            context.read()
        }
    }
}
