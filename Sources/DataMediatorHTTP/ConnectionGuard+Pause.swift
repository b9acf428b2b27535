import NIOCore

/// The pause of a connection's reads after a `429`.
extension ConnectionGuard {
    /// How long a connection's next request waits to be read after a `429`: a client that
    /// sends again at once (not after its `Retry-After`) is answered at this pace at most,
    /// and its `429`s do not take the cores from the other clients' requests.
    static let pauseAfterRefusal: TimeAmount = .milliseconds(500)

    /// Holds the connection's reads for ``pauseAfterRefusal``: what its client sends meanwhile
    /// waits in the socket, or here when it was read already.
    func pauseReads(_ context: ChannelHandlerContext) {
        let until = NIODeadline.now() + Self.pauseAfterRefusal
        pausedUntil = until
        context.eventLoop.assumeIsolated().scheduleTask(deadline: until) { [self] in
            guard let paused = pausedUntil, paused <= .now() else { return }
            pausedUntil = nil
            let parts = heldParts
            heldParts = []
            for part in parts { channelRead(context: context, data: part) }
            if !parts.isEmpty { context.fireChannelReadComplete() }
            if readHeld {
                readHeld = false
                context.read()
            }
        }
    }

    func read(context: ChannelHandlerContext) {
        if pausedUntil != nil {
            readHeld = true
            return
        }
        context.read()
    }
}
