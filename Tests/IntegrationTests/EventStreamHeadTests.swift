import DataMediatorTesting
import Foundation
import Testing

/// `HEAD` on an event stream answers the stream's headers, as `GET` would send them
/// (chunked, so no `Content-Length`), and leaves nothing open behind it.
@Suite struct EventStreamHeadTests {
    @Test func headAnswersTheStreamsHeadersAndHoldsNothing() async throws {
        let server = try await ServerProcess(arguments: ["--demo-transactions", "10"])
        defer { server.removeData() }
        for _ in 0..<3 {
            let head = try await server.send("HEAD", "/lists/transactions/events")
            #expect(head.status == 200)
            #expect(head.headers["content-type"] == "text/event-stream; charset=utf-8")
            #expect(head.headers["content-length"] == nil, "\(head.headers)")
            #expect(head.body.isEmpty)
        }
        #expect(try await server.send("HEAD", "/lists/nosuch/events").status == 404)
        #expect(try await server.send("HEAD", "/lists/transactions/events?since=x").status == 400)
        let metrics = String(decoding: try await server.get("/metrics").body, as: UTF8.self)
        #expect(metrics.contains(#"http_server_active_requests{http_request_method="HEAD"} 0.0"#), "\(metrics)")
        #expect(await server.stop() == 0)
    }
}
