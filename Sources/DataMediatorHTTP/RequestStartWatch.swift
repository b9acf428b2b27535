import NIOCore

/// Sits before the HTTP parser and tells the connection's ``ConnectionGuard`` when the
/// first bytes of a request come while it waits for one: the request head's time limit
/// runs from its first byte, so a kept-alive connection may wait for its next request as
/// long as the idle limit allows, and a head sent byte by byte is still cut off.
final class RequestStartWatch: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// Whether the connection waits for a request's first byte.
    var waiting = true
    /// Called (on the connection's event loop) when it came.
    private let began: () -> Void

    init(began: @escaping () -> Void) {
        self.began = began
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if waiting {
            waiting = false
            began()
        }
        context.fireChannelRead(data)
    }
}
