import DataMediatorTesting
import Foundation
import Testing

/// No number a client sends can make the service trap or fail: every place a number is
/// read (query parameters, path ids, headers, cursors, bodies) answers a 2xx or a 4xx for
/// the largest and smallest 64-bit values, one past them, and numbers far beyond.
@Suite struct HugeNumbersTests {
    static let numbers = [
        "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
        "99999999999999999999999999999999", "1e308", "1e999", "-0", "0",
    ]

    @Test func everyNumberReadFromARequestAnswersWithoutAServerError() async throws {
        let server = try await ServerProcess(
            arguments: ["--demo-transactions", "50"],
            environment: ["DATA_MEDIATOR_WRITE_TOKENS": "t"]
        )
        defer { server.removeData() }
        var answered = 0
        for number in Self.numbers {
            let encoded = number.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? number
            let paths = [
                "/lists/transactions/items?limit=\(encoded)",
                "/lists/transactions/items?view=game&game=\(encoded)",
                "/lists/transactions/items?view=by_player&player=\(encoded)&limit=\(encoded)",
                "/lists/transactions/items/\(encoded)",
                "/lists/transactions/items/\(encoded)?view=feed",
                "/lists/transactions/sections?view=game&game=\(encoded)",
                "/lists/transactions/changes?since=\(encoded)&limit=\(encoded)",
                "/lists/transactions/items?cursor=\(encoded)",
                "/lists/highscore/items?limit=\(encoded)",
                "/lists/home/items?limit=\(encoded)",
                "/lists/home/items/recent/\(encoded)",
            ]
            for path in paths {
                let answer = try await server.get(path)
                #expect((200..<500).contains(answer.status), "GET \(path): \(answer.status)")
                answered += 1
            }
            // An event stream from a version it cannot resume from is refused (4xx) or
            // answers `event: reload` (API.md); never a server error.
            for header in ["", "Last-Event-ID: \(number)\r\n"] {
                let client = try RawClient(port: server.port)
                let query = header.isEmpty ? "?since=\(encoded)" : ""
                client.send("GET /lists/transactions/events\(query) HTTP/1.1\r\nHost: localhost\r\n\(header)\r\n")
                let head = await client.read(within: 5) ?? ""
                #expect(
                    head.hasPrefix("HTTP/1.1 4") || head.hasPrefix("HTTP/1.1 200"),
                    "events \(number): \(head.prefix(40))"
                )
                answered += 1
            }
            for body in [
                #"{"data": {"player": "p", "points": \#(number), "reason": "r", "created_at": "2026-11-25T10:00:00Z"}}"#,
                #"{"id": \#(number), "data": {"player": "p", "points": 1, "reason": "r", "created_at": "x", "game": \#(number)}}"#,
            ] {
                let answer = try await server.send(
                    "POST",
                    "/lists/transactions/items",
                    headers: ["Authorization": "Bearer t", "Content-Type": "application/json"],
                    body: body
                )
                #expect((200..<500).contains(answer.status), "POST \(body): \(answer.status)")
                answered += 1
            }
            let sized = try RawClient(port: server.port)
            sized.send(
                "POST /lists/transactions/items HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer t\r\n"
                    + "Content-Type: application/json\r\nContent-Length: \(number)\r\n\r\n{}"
            )
            let sizedHead = await sized.read(within: 5) ?? ""
            #expect(!sizedHead.hasPrefix("HTTP/1.1 5"), "Content-Length \(number): \(sizedHead.prefix(40))")
        }
        #expect(answered > 100)
        #expect(try await server.get("/health").status == 200)
        #expect(await server.stop() == 0)
    }
}
