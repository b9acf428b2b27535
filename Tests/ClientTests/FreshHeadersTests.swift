import Crypto
import DataMediatorClient
import DataMediatorTesting
import Foundation
import Testing

/// A session on a scoped list whose tokens expire follows on: each request and each stream
/// it opens asks for fresh headers, and the server ends a stream when its token expires.
@Suite struct FreshHeadersTests {
    static let secret = "fresh-headers-test-secret-0123456789"

    /// An HS256 JWT for `sub` that expires `seconds` from now.
    static func token(sub: String, expiresIn seconds: Int) -> String {
        func encode(_ bytes: some Sequence<UInt8>) -> String {
            Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        let exp = Int(Date().timeIntervalSince1970) + seconds
        let signing =
            encode(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8)) + "."
            + encode(Array(#"{"sub":"\#(sub)","exp":\#(exp)}"#.utf8))
        let mac = HMAC<SHA256>.authenticationCode(
            for: Array(signing.utf8),
            using: SymmetricKey(data: Array(secret.utf8))
        )
        return signing + "." + encode(mac)
    }

    @Test func aSessionFollowsAScopedListPastItsTokensExpiry() async throws {
        let server = try await ServerProcess(
            arguments: ["--demo-transactions", "50"],
            environment: ["DATA_MEDIATOR_WRITE_TOKENS": Live.token, "DATA_MEDIATOR_JWT_SECRET": Self.secret]
        )
        defer { server.removeData() }
        let configuration = ListSessionConfiguration(
            list: "mine",
            limit: 100,
            freshHeaders: { ["Authorization": "Bearer " + FreshHeadersTests.token(sub: "ana", expiresIn: 2)] },
            reconnectDelay: .milliseconds(100)
        )
        let session = ListSession(baseURL: try #require(URL(string: server.base)), configuration: configuration)
        try await session.loadFirstPage()
        let follower = Task { try await session.follow() }
        // Writes to Ana's slice, spread over more than one token's life: the last one after
        // the stream was opened again (the server ends it at `exp` plus its leeway, 5 s).
        for index in 0..<4 {
            try await Task.sleep(for: .milliseconds(1_200))
            let deadline = ContinuousClock.now + .seconds(20)
            while index == 3, await session.statistics.reconnects == 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            let answer = try await server.send(
                "POST",
                "/lists/mine/items",
                headers: [
                    "Authorization": "Bearer " + Self.token(sub: "ana", expiresIn: 60),
                    "Content-Type": "application/json",
                ],
                body:
                    #"{"data": {"points": \#(index), "reason": "fresh", "created_at": "2026-11-27T08:00:0\#(index)Z", "game": 1}}"#
            )
            #expect(answer.status == 201, "\(String(decoding: answer.body, as: UTF8.self))")
        }
        let page = try await server.send(
            "GET",
            "/lists/mine/items?limit=100",
            headers: ["Authorization": "Bearer " + Self.token(sub: "ana", expiresIn: 60)]
        )
        let version = try #require(
            Int64(
                (try JSONSerialization.jsonObject(with: Data(page.body)) as? [String: Any])?["version"] as? String ?? ""
            )
        )
        try await Live.wait(for: session, toReach: version)
        #expect(await session.snapshot.items.filter { $0.data["reason"]?.stringValue == "fresh" }.count == 4)
        #expect(await session.statistics.reconnects >= 1)
        follower.cancel()
        #expect(await follower.result.isSuccess)
        #expect(await server.stop() == 0)
    }
}

extension Result {
    /// Whether it is a success.
    fileprivate var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}
