import HTTPTypes
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import Synchronization
import Testing

@testable import DataMediatorHTTP

/// A connection picked as idle for a newcomer's place may have read a whole request by the
/// time the eviction reaches its event loop: it is answered, then closed, not cut while its
/// request runs (review 84 F4: a write committed and its client saw a reset).
@Suite struct ConnectionEvictionTests {
    static func connection(_ connections: ConnectionCount) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).wait()
        let connectionGuard = ConnectionGuard(
            limits: ServerLimits(),
            maximumBodySize: 1024,
            connections: connections,
            logger: Logger(label: "test")
        )
        try channel.pipeline.syncOperations.addHandler(connectionGuard)
        // The handlers the guard puts before it read and write bytes; here the HTTP parts
        // come and go as the codecs would hand them over.
        let operations = channel.pipeline.syncOperations
        try operations.removeHandler(context: try operations.context(handlerType: RequestStartWatch.self)).wait()
        try operations.removeHandler(context: try operations.context(handlerType: AnswerDrainGuard.self)).wait()
        return channel
    }

    @Test func aConnectionEvictedWithARequestInFlightIsAnsweredThenClosed() throws {
        let connections = ConnectionCount()
        let channel = try Self.connection(connections)
        let request = HTTPRequest(method: .post, scheme: nil, authority: "localhost", path: "/lists/notes/items")
        try channel.writeInbound(ConnectionGuard.InboundIn.head(request))
        try channel.writeInbound(ConnectionGuard.InboundIn.end(nil))
        channel.pipeline.fireUserInboundEventTriggered(ConnectionGuard.Evicted())
        #expect(channel.isActive, "the request in flight was cut")
        #expect(connections.value.load(ordering: .relaxed) == 0, "it still counts against the limits")
        try channel.writeOutbound(ConnectionGuard.OutboundIn.head(HTTPResponse(status: .created)))
        try channel.writeOutbound(ConnectionGuard.OutboundIn.end(nil))
        #expect(!channel.isActive, "answered, it stayed open")
        // Its answer says it closes (RFC 9112 9.6): its client sends nothing more on it.
        guard case .head(let head) = try channel.readOutbound(as: ConnectionGuard.OutboundOut.self) else {
            Issue.record("no answer's head")
            return
        }
        #expect(head.status == .created && head.headerFields[.connection] == "close")
        _ = try channel.finish(acceptAlreadyClosed: true)
    }

    /// An idle one is closed at once, as before.
    @Test func anIdleConnectionEvictedIsClosedAtOnce() throws {
        let connections = ConnectionCount()
        let channel = try Self.connection(connections)
        channel.pipeline.fireUserInboundEventTriggered(ConnectionGuard.Evicted())
        #expect(!channel.isActive)
        #expect(connections.value.load(ordering: .relaxed) == 0)
        _ = try channel.finish(acceptAlreadyClosed: true)
    }
}
