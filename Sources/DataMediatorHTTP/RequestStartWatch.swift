import NIOCore

/// Sits before the HTTP parser and tells the connection's ``ConnectionGuard`` when the
/// first bytes of a request come while it waits for one: the request head's time limit
/// runs from its first byte, so a kept-alive connection may wait for its next request as
/// long as the idle limit allows, and a head sent byte by byte is still cut off.
///
/// It also keeps that request's first four bytes: NIO's parser names a request whose
/// method is `PRI` (HTTP/2's connection preface) with an HTTP/1 version a bad version, and
/// the guard answers it as the unknown method it is.
final class RequestStartWatch: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// Whether the connection waits for a request's first byte.
    var waiting = true {
        didSet { if waiting { matched = 0 } }
    }
    /// How many of the first bytes of the request that came after the last wait are those
    /// of `PRI `; -1 once one is not (counted, not kept: no buffer a request).
    private var matched = 0
    private static let pri = Array("PRI ".utf8)
    /// Called (on the connection's event loop) when it came.
    private let began: () -> Void

    init(began: @escaping () -> Void) {
        self.began = began
    }

    /// Whether the request that came after the last wait begins with the method `PRI`.
    var beganWithPRI: Bool { matched == Self.pri.count }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if waiting {
            waiting = false
            began()
        }
        if matched >= 0, matched < Self.pri.count {
            for byte in unwrapInboundIn(data).readableBytesView.prefix(Self.pri.count - matched) {
                guard byte == Self.pri[matched] else {
                    matched = -1
                    break
                }
                matched += 1
            }
        }
        context.fireChannelRead(data)
    }
}
