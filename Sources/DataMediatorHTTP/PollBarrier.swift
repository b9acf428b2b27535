import NIOCore
import NIOPosix
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs work on an event loop once the loop has next polled its sockets.
///
/// NIO's event loop runs the tasks queued to it until none is left before it polls its
/// sockets again. A connection's pipelined requests need no socket read to go on (they came
/// in one read), so one client's backlog of them on many connections kept the loop's queue
/// full with their answers' writes: the loop accepted no connection and read no other
/// client's request until the whole backlog was answered. Work queued here waits for the
/// loop's next poll instead: a byte written to a pipe the loop watches makes the pipe
/// readable, which only a poll reports. NIO has no hook of its own for "after the next
/// poll"; a pipe is the smallest event source that needs one.
final class PollBarrier: @unchecked Sendable {
    /// One barrier for each event loop, made when first asked for. The loops are kept
    /// (a loop is never dropped while its group runs, and a barrier's key stays unique).
    private static let barriers = Mutex<[ObjectIdentifier: PollBarrier]>([:])

    private let loop: any EventLoop
    // Touched on `loop` only.
    private var channel: (any Channel)?
    private var opening = false
    private var armed = false
    private var waiting: [() -> Void] = []

    private init(loop: any EventLoop) {
        self.loop = loop
    }

    /// The barrier of `loop`.
    static func on(_ loop: any EventLoop) -> PollBarrier {
        barriers.withLock { barriers in
            if let barrier = barriers[ObjectIdentifier(loop)] { return barrier }
            let barrier = PollBarrier(loop: loop)
            barriers[ObjectIdentifier(loop)] = barrier
            return barrier
        }
    }

    /// Runs `work` on the loop after its next poll of its sockets; called on the loop. When
    /// the pipe cannot be had, `work` runs on the loop's next turn instead.
    func afterNextPoll(_ work: @escaping () -> Void) {
        loop.preconditionInEventLoop()
        waiting.append(work)
        arm()
    }

    private func arm() {
        guard !armed else { return }
        guard let channel, channel.isActive else { return open() }
        armed = true
        channel.writeAndFlush(ByteBuffer(bytes: [1])).whenFailure { [self] _ in
            // The pipe is gone (its loop shuts down): nothing will poll it.
            armed = false
            self.channel = nil
            runWaiting()
        }
    }

    private func open() {
        guard !opening else { return }
        opening = true
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            opening = false
            return loop.execute { [self] in runWaiting() }
        }
        NIOPipeBootstrap(group: loop)
            .channelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(Reader(self)) }
            }
            .takingOwnershipOfDescriptors(input: ends[0], output: ends[1])
            .hop(to: loop)
            .whenComplete { [self] result in
                opening = false
                switch result {
                case .success(let channel):
                    self.channel = channel
                    arm()
                case .failure:
                    runWaiting()
                }
            }
    }

    /// The loop polled and read the pipe: the work queued until now runs (work it queues
    /// in turn waits for the next poll).
    fileprivate func polled() {
        armed = false
        runWaiting()
    }

    private func runWaiting() {
        let work = waiting
        waiting = []
        for body in work { body() }
    }

    /// Reads the pipe's bytes: each read is a poll that reported it.
    private final class Reader: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        private let barrier: PollBarrier

        init(_ barrier: PollBarrier) {
            self.barrier = barrier
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            barrier.polled()
        }
    }
}
