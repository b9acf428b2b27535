import DataMediatorTesting
import Foundation
import Testing

/// An HTTP/1.0 client of an event stream gets it without the chunked coding, which HTTP/1.0
/// does not have (RFC 9112 6.1): as an `HTTP/1.0` answer that the connection's close ends.
@Suite struct HTTP10StreamTests {
    @Test func anEventStreamToAnHTTP10ClientIsNotChunked() async throws {
        let server = try await ServerProcess(arguments: ["--demo-transactions", "10"])
        defer { server.removeData() }
        for request in [
            "GET /lists/transactions/events HTTP/1.0\r\n\r\n",
            "GET /lists/transactions/events HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
        ] {
            let client = try RawClient(port: server.port)
            client.send(request)
            var text = ""
            let deadline = ContinuousClock.now + .seconds(30)
            while !text.contains("\r\n\r\nretry:"), !text.contains("\r\n\r\n3"), ContinuousClock.now < deadline {
                if let more = await client.read(within: 1) { text += more }
            }
            let head = text.components(separatedBy: "\r\n\r\n").first?.lowercased() ?? ""
            #expect(head.hasPrefix("http/1.0 200"), "\(request): \(text)")
            #expect(!head.contains("transfer-encoding"), "\(request): \(text)")
            #expect(head.contains("connection: close"), "\(request): \(text)")
            #expect(text.contains("\r\n\r\nretry: 2000\n"), "the events follow the head as they are: \(text)")
        }
        // An HTTP/1.1 client still gets it chunked.
        let client = try RawClient(port: server.port)
        client.send("GET /lists/transactions/events HTTP/1.1\r\nHost: x\r\n\r\n")
        var text = ""
        let deadline = ContinuousClock.now + .seconds(30)
        while !text.contains("retry:"), ContinuousClock.now < deadline {
            if let more = await client.read(within: 1) { text += more }
        }
        #expect(text.lowercased().contains("transfer-encoding: chunked"), "\(text)")
        #expect(await server.stop() == 0)
    }
}
