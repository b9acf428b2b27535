import NIOCore
import NIOEmbedded
import Synchronization
import Testing

@testable import DataMediatorPostgres

/// A closed connection is kept alive until its waits have ended: they are keyed by its
/// identity, and a new connection made at its freed address during the grace had its
/// waits ended as the closed one's (a write on that healthy connection answered `503`,
/// yet committed: probe 41, under `pg_terminate_backend`).
@Suite struct ConnectionWatchTests {
    /// A connection that closes when its test says so.
    final class FakeConnection: WatchedConnection, @unchecked Sendable {
        let promise: EventLoopPromise<Void>
        let eventLoop: any EventLoop
        var closeFuture: EventLoopFuture<Void> { promise.futureResult }

        init(on loop: any EventLoop) {
            eventLoop = loop
            promise = loop.makePromise()
        }
    }

    @Test func aClosedConnectionOutlivesItsWaitsSoItsKeyIsNoOtherConnections() {
        let loop = EmbeddedEventLoop()
        let watch = ConnectionWatch()
        let ended = Atomic<Int>(0)
        var closing: FakeConnection? = FakeConnection(on: loop)
        weak let gone = closing
        _ = watch.add(closing!) { ended.add(1, ordering: .relaxed) }
        let open = FakeConnection(on: loop)
        _ = watch.add(open) { ended.add(10, ordering: .relaxed) }
        closing?.promise.succeed(())
        closing = nil
        // Closed, its waits not yet ended: it is still there, so no new connection takes
        // its address (and its key).
        #expect(gone != nil)
        loop.advanceTime(by: ConnectionWatch.grace)
        // Its wait ended; the open connection's did not.
        #expect(ended.load(ordering: .relaxed) == 1)
        #expect(gone == nil)
        open.promise.succeed(())
        loop.advanceTime(by: ConnectionWatch.grace)
        #expect(ended.load(ordering: .relaxed) == 11)
    }
}
