import DataMediator
import DataMediatorTesting
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization
import Testing

@testable import DataMediatorHTTP

@Suite struct RequestIDTests {
    static let field = HTTPField.Name("X-Request-ID") ?? .eTag

    @Test func aClientsIDIsKeptEchoedAndLoggedAndABadOneIsReplaced() async throws {
        let logs = CapturedLogs()
        let router = buildRouter(registry: HTTPTestSupport.registry())
        try await Application(router: router, logger: logs.logger).test(.router) { client in
            let kept = try await client.execute(
                uri: "/lists/sample/items?limit=1",
                method: .get,
                headers: [Self.field: "client-42.a:b_c"]
            )
            #expect(kept.headers[Self.field] == "client-42.a:b_c")
            // An error answer carries it too.
            let missing = try await client.execute(uri: "/lists/nope", method: .get, headers: [Self.field: "e-1"])
            #expect(missing.status == .notFound && missing.headers[Self.field] == "e-1")
            for bad in ["has space", String(repeating: "x", count: 129), "é"] {
                let replaced = try await client.execute(uri: "/health", method: .get, headers: [Self.field: bad])
                let id = try #require(replaced.headers[Self.field])
                #expect(id != bad && id.count == 32 && id.allSatisfy(\.isHexDigit), "\(bad) -> \(id)")
            }
            let made = try await client.execute(uri: "/health", method: .get)
            #expect(made.headers[Self.field]?.count == 32)
        }
        let requests = logs.lines.withLock { $0 }.filter { $0.message == "request" }
        #expect(requests.count == 6)
        #expect(requests.first?.metadata["request_id"] == "client-42.a:b_c")
        #expect(requests.allSatisfy { $0.metadata["request_id"] != nil })
        let first = try #require(requests.first?.metadata)
        #expect(first["method"] == "GET" && first["path"] == "/lists/sample/items")
        #expect(requests.map { $0.metadata["status"]?.description } == ["200", "404", "200", "200", "200", "200"])
        let duration = try #require(first["duration_ms"]?.description)
        #expect(duration.wholeMatch(of: /[0-9]+\.[0-9]{3}/) != nil, "\(duration)")
    }

    @Test func durationsAreMillisecondsWithThreeDecimals() {
        #expect(LoggedNumber.milliseconds(microseconds: 0) == "0.000")
        #expect(LoggedNumber.milliseconds(microseconds: 7) == "0.007")
        #expect(LoggedNumber.milliseconds(microseconds: 1250) == "1.250")
        #expect(LoggedNumber.milliseconds(microseconds: 12_345_678) == "12345.678")
    }

    @Test func newIDsAreDistinctHexOf32Digits() {
        let ids = (0..<20_000).map { _ in RequestIDs.next() }
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { $0.count == 32 && $0.allSatisfy(\.isHexDigit) })
        // The count does not show: consecutive ids differ in more than their last digits.
        #expect(ids[0].suffix(16).prefix(8) != ids[1].suffix(16).prefix(8))
    }
}
