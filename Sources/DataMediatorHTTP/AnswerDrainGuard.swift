import NIOCore

/// Holds a connection's close until the answers written to it have left for the client, so
/// that a close never cuts an answer short.
///
/// The framework counts an answer done once it is handed to the connection, and closes an
/// idle connection (its idle limit, a shutdown's quiescing) at once; but an answer of
/// megabytes read slowly waits in the connection's buffer long after, and a close drops
/// what waits there: the client read a `Content-Length` and then too few bytes. Sitting
/// first in the pipeline, this handler sees every close: when bytes are still buffered it
/// stops reading new requests and closes once they have gone, or once the client has taken
/// none of them for the idle limit (it has stopped reading), or, in a shutdown, once the
/// shutdown's grace period is nearly over (the service must stop within it).
///
/// Bytes a flush leaves buffered are watched from then on (each second, until none is
/// left), so that the idle limit counts from the last bytes the client took, not from the
/// close: an answer its client never reads is let go one idle limit after it was written,
/// not two (the framework's idle close itself comes one idle limit after the request). A
/// connection whose client has taken none of what waits for the idle limit is closed even
/// when no close was asked: requests it pipelined behind the answer keep the framework's
/// idle close from coming.
/// A client's turn to read given to it (``keepUntilSent(_:on:)``) goes once the next answer
/// has left but for what the connection takes without waiting (its write buffer's marks),
/// or with the connection: a client that reads none of its answers has no more of them held
/// than its share of reads.
final class AnswerDrainGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = IOData

    /// How often a held close looks at what is still buffered.
    static let lookInterval: TimeAmount = .milliseconds(50)
    /// How often bytes left buffered by a flush are looked at before any close.
    static let watchInterval: TimeAmount = .seconds(1)
    /// How long before the shutdown's grace period ends a held close gives up, leaving the
    /// framework time to end.
    static let shutdownMargin: TimeAmount = .milliseconds(500)

    private let idleLimit: TimeAmount
    private let shutdownGrace: TimeAmount
    /// When a held close gives up whatever is still buffered: set by a shutdown.
    private var shutdownDeadline: NIODeadline?
    /// The promises of the closes held, completed by the close made at last.
    private var heldPromises: [EventLoopPromise<Void>] = []
    private var holding = false
    /// How the held close closes: `.all` once any close held asked for it.
    private var heldMode = CloseMode.all
    /// The bytes buffered at the last look, those written since, and when the client last
    /// took some.
    private var buffered = 0
    private var added = 0
    private var lastTaken = NIODeadline.now()
    private var look: Scheduled<Void>?
    /// Holds given for the next answer, and those kept until no byte is left buffered.
    private var forNextAnswer: [any Sendable] = []
    private var keptUntilSent: [any Sendable] = []

    init(idleLimit: Duration, shutdownGrace: Duration) {
        self.idleLimit = .nanoseconds(Int64(idleLimit.components.seconds) * 1_000_000_000)
        self.shutdownGrace = .nanoseconds(Int64(shutdownGrace.components.seconds) * 1_000_000_000)
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        // An output close is held as a whole one is: the framework closes the output once
        // a client that half-closed has its last answer handed over, and NIO makes that a
        // whole close below this handler when the input is shut, dropping what waits in
        // the buffer (review 111 #2: 6-15 MB of a 50 MB answer).
        guard mode != .input else {
            context.close(mode: mode, promise: promise)
            return
        }
        if holding {
            if mode == .all { heldMode = .all }
            if let promise { heldPromises.append(promise) }
            return
        }
        context.flush()
        let waiting = bufferedBytes(context)
        guard waiting > 0, context.channel.isActive else {
            context.close(mode: mode, promise: promise)
            return
        }
        let watched = look != nil
        look?.cancel()
        holding = true
        heldMode = mode
        if let promise { heldPromises.append(promise) }
        // Bytes watched since a flush keep the time the client last took some; others
        // were buffered a moment ago.
        if !watched { lastTaken = .now() }
        noteTaken(waiting)
        scheduleLook(context)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if look != nil { added += unwrapOutboundIn(data).readableBytes }
        context.write(data, promise: promise)
    }

    func flush(context: ChannelHandlerContext) {
        context.flush()
        let waiting = bufferedBytes(context)
        if !forNextAnswer.isEmpty {
            // The answer the holds were given for: kept while more of it waits here than
            // the connection lets be written (its high-water mark), until it is writable.
            if !context.channel.isWritable { keptUntilSent += forNextAnswer }
            forNextAnswer = []
        }
        guard look == nil, !holding, waiting > 0 else { return }
        (buffered, added, lastTaken) = (waiting, 0, .now())
        scheduleLook(context)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { keptUntilSent = [] }
        context.fireChannelWritabilityChanged()
    }

    /// Keeps `hold` (a client's turn to read) until the next answer written to `connection`
    /// has left (the connection is writable again), or the connection closes; given before
    /// that answer is made (its read yields after, so this comes first on the connection's
    /// event loop).
    static func keepUntilSent(_ hold: any Sendable, on connection: any Channel) {
        connection.eventLoop.execute {
            guard let context = try? connection.pipeline.syncOperations.context(handlerType: AnswerDrainGuard.self),
                let drain = context.handler as? AnswerDrainGuard, context.channel.isActive
            else { return }
            drain.forNextAnswer.append(hold)
        }
    }

    func read(context: ChannelHandlerContext) {
        // A connection about to close reads no new request: its answer would be cut.
        guard !holding else { return }
        context.read()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent, shutdownDeadline == nil {
            shutdownDeadline = .now() + max(shutdownGrace - Self.shutdownMargin, .milliseconds(100))
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if holding { release(context) }
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        look?.cancel()
        look = nil
        (forNextAnswer, keptUntilSent) = ([], [])
    }

    /// The bytes written to the connection and not yet handed to the socket.
    private func bufferedBytes(_ context: ChannelHandlerContext) -> Int {
        (try? context.channel.syncOptions?.getOption(.bufferedWritableBytes)) ?? 0
    }

    /// Notes the bytes buffered now: the client took some when fewer are left than were
    /// at the last look with those written since.
    private func noteTaken(_ waiting: Int) {
        if waiting < buffered + added { lastTaken = .now() }
        (buffered, added) = (waiting, 0)
    }

    /// Looks again in a moment (``watchInterval``, or ``lookInterval`` while a close is
    /// held): stops watching when nothing is buffered; a held close closes then, or when the
    /// client has taken nothing for the idle limit, or the shutdown's deadline has come.
    private func scheduleLook(_ context: ChannelHandlerContext) {
        let interval = holding ? Self.lookInterval : Self.watchInterval
        look = context.eventLoop.assumeIsolated().scheduleTask(in: interval) { [self] in
            look = nil
            let waiting = bufferedBytes(context)
            noteTaken(waiting)
            if waiting == 0 { keptUntilSent = [] }
            let now = NIODeadline.now()
            guard holding else {
                // A client that has taken none of its answer for the idle limit is gone
                // or stalled: its connection closes, though requests it pipelined behind
                // the answer are in flight (the framework's idle close waits for them, and
                // one may wait for the turn this answer holds: they were never let go).
                if waiting > 0, now - lastTaken >= idleLimit {
                    release(context)
                } else if waiting > 0 {
                    scheduleLook(context)
                }
                return
            }
            if waiting == 0 || now - lastTaken >= idleLimit || shutdownDeadline.map({ now >= $0 }) == true {
                release(context)
            } else {
                scheduleLook(context)
            }
        }
    }

    /// Makes the close held, completing every promise held with it.
    private func release(_ context: ChannelHandlerContext) {
        let mode = holding ? heldMode : .all
        (holding, heldMode) = (false, .all)
        look?.cancel()
        look = nil
        (forNextAnswer, keptUntilSent) = ([], [])
        let promises = heldPromises
        heldPromises = []
        let closed = context.eventLoop.makePromise(of: Void.self)
        closed.futureResult.whenComplete { result in
            for promise in promises { promise.completeWith(result) }
        }
        context.close(mode: mode, promise: closed)
    }
}
