import DataMediatorTesting
import Foundation
import Testing

/// A client's turn to read passes on once its answer has left, not when it is made: a
/// client that asks for large pages on many connections and reads none had one held in
/// memory on each (probe 49: 30 connections, 20 MB each, 195 -> 859 MB), and now has no
/// more held than its share of reads; its next page waits in its line meanwhile, and
/// another client's does not.
@Suite struct UnreadAnswerLineTests {
    @Test(.timeLimit(.minutes(2))) func anUnreadAnswerHoldsItsClientsTurnUntilItLeaves() async throws {
        let server = try await SlowReaderTests.serverWithLargeItems(["DATA_MEDIATOR_CLIENT_READS": "1"])
        defer { server.removeData() }
        // A page of about 9 MB asked for and not read: the share of reads is 1.
        var stuck: RawClient? = try RawClient(port: server.port)
        stuck?.send(SlowReaderTests.request)
        #expect(await stuck?.read(within: 10)?.hasPrefix("HTTP/1.1 200") == true)
        // The same client's next page waits in its line while that answer waits to leave.
        let next = try RawClient(port: server.port)
        next.send("GET /lists/transactions/items?limit=1 HTTP/1.1\r\nHost: localhost\r\n\r\n")
        #expect(await next.read(within: 2) == nil, "answered while the first answer was held unread")
        // Another client (a token of its own) is answered at once.
        let other = try await server.get(
            "/lists/transactions/items?limit=1",
            headers: ["Authorization": "Bearer a-write-token-for-slow-readers"]
        )
        #expect(other.status == 200)
        // Once the first connection goes, its turn passes on.
        stuck = nil
        #expect(await next.read(within: 10)?.hasPrefix("HTTP/1.1 200") == true)
        #expect(await server.stop() == 0)
    }

    /// Requests pipelined behind an answer the client never reads do not keep its
    /// connection, and with it the client's turn, for good: the next one waited for the
    /// turn the unread answer held, and the framework's idle close waits for requests in
    /// flight (probe 52: open at 100 s with an idle limit of 20 s, the client's other reads
    /// waiting all along). The connection goes once its client has taken nothing for the
    /// idle limit.
    @Test(.timeLimit(.minutes(2))) func requestsPipelinedBehindAnUnreadAnswerDoNotKeepItsTurn() async throws {
        let server = try await SlowReaderTests.serverWithLargeItems([
            "DATA_MEDIATOR_CLIENT_READS": "1", "DATA_MEDIATOR_IDLE_TIMEOUT_SECONDS": "4",
        ])
        defer { server.removeData() }
        let stuck = try RawClient(port: server.port)
        stuck.send(
            SlowReaderTests.request + "GET /lists/transactions/items?limit=1 HTTP/1.1\r\nHost: localhost\r\n\r\n"
        )
        let next = try RawClient(port: server.port)
        next.send("GET /lists/transactions/items?limit=1 HTTP/1.1\r\nHost: localhost\r\n\r\n")
        // Waited for while the unread answer holds the turn, answered once its connection
        // closes, about the idle limit after the client last took something.
        #expect(await next.readAnswer(within: 30)?.hasPrefix("HTTP/1.1 200") == true)
        #expect(await server.stop() == 0)
    }
}
