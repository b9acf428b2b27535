import DataMediatorTesting
import Foundation
import Glibc
import Testing

/// A write whose client closes its connection before the body ended is logged and counted
/// as the client's leaving (`499`), not as a `400` among the server's refusals of bad
/// requests, which no answer reached (review 94 #5: an alert on write `4xx` could not tell
/// them apart).
@Suite struct CutShortWriteTests {
    @Test func aBodyItsClientStoppedSendingIsNotABadRequest() async throws {
        let server = try await ServerProcess.writableDemo()
        defer { server.removeData() }
        func metric(_ prefix: String) async throws -> Double {
            let text = String(decoding: try await server.get("/metrics").body, as: UTF8.self)
            return text.split(separator: "\n").filter { $0.hasPrefix(prefix) }
                .compactMap { Double($0.split(separator: " ").last ?? "") }.reduce(0, +)
        }
        let route = #"{http_route="/lists/{list}/items",http_request_method="POST""#
        let errorsBefore = try await metric("hb_request_errors" + route)
        for index in 0..<4 {
            let client = try RawClient(port: server.port)
            client.send(RawClient.transactionWrite(length: 100, fields: "X-Request-ID: cut-\(index)\r\n") + #"{"da"#)
            try await Task.sleep(for: .milliseconds(100))
            if index.isMultiple(of: 2) {
                // Reset (RST), not closed (FIN): a 500, logged as a fault, before (review 96).
                var reset = linger(l_onoff: 1, l_linger: 0)
                setsockopt(client.socket, SOL_SOCKET, SO_LINGER, &reset, socklen_t(MemoryLayout<linger>.size))
            }
        }
        var lines: [[String: Any]] = []
        for _ in 0..<100 where lines.count < 4 {
            try await Task.sleep(for: .milliseconds(50))
            lines = server.log.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }.filter {
                ($0["request_id"] as? String)?.hasPrefix("cut-") == true && $0["message"] as? String == "request"
            }
        }
        #expect(lines.count == 4, "\(server.log)")
        #expect(lines.allSatisfy { $0["status"] as? Int == 499 }, "\(lines)")
        #expect(try await metric("hb_request_errors" + route) == errorsBefore, "counted among the error answers")
        #expect(try await metric("hb_requests" + route + #",http_response_status_code="499"}"#) == 4)
        // A body whose framing is bad is still the client's bad request.
        let bad = try RawClient(port: server.port)
        bad.send(RawClient.transactionWrite(length: nil, fields: "Transfer-Encoding: chunked\r\n") + "zz\r\n")
        #expect(await bad.readAnswer(within: 5)?.hasPrefix("HTTP/1.1 400") == true)
        #expect(await server.stop() == 0)
    }
}
