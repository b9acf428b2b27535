import DataMediator
import DataMediatorTesting
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import DataMediatorHTTP

/// A configured write token reads a scoped list whole, every caller's slice (API.md: "the
/// configured static write tokens keep full access (operators, imports)"); it was `401`,
/// as a token that is no JWT. Its cursors are the whole list's: a caller's are refused
/// with it, and its own are refused to a caller.
@Suite struct ScopedListOperatorTests {
    @Test func aWriteTokenReadsEveryCallersSlice() async throws {
        let fixture = try ScopedListTests.Fixture()
        try await fixture.run { client in
            let ana = try await ScopedListTests.headers("ana")
            let bo = try await ScopedListTests.headers("bo")
            try await ScopedListTests.create([(ana, "a1"), (bo, "b1"), (ana, "a2")], client)
            let operatorToken: HTTPFields = [.authorization: "Bearer \(ScopedListTests.writeToken)"]
            func get(_ uri: String, _ headers: HTTPFields = operatorToken) async throws -> TestResponse {
                try await client.execute(uri: uri, method: .get, headers: headers)
            }
            #expect(try ScopedListTests.ids(try await get("/lists/mine/items")) == ["a1", "a2", "b1"])
            // Walked a page at a time.
            var walked: [String] = []
            var uri: String? = "/lists/mine/items?limit=1"
            while let next = uri {
                let page = try await get(next)
                #expect(page.status == .ok)
                walked += try ScopedListTests.ids(page)
                uri = try Page.decode(Array(page.body.readableBytesView)).next.map {
                    "/lists/mine/items?limit=1&cursor=\($0)"
                }
            }
            #expect(walked == ["a1", "a2", "b1"])
            #expect(try await get("/lists/mine/items/b1").status == .ok)
            #expect(try HTTPTestSupport.json(try await get("/lists/mine/sections"))["total"] as? Int == 3)
            // Changes are logged per caller's slice: the whole list's feed says reload.
            let changes = try HTTPTestSupport.json(try await get("/lists/mine/changes?since=0"))
            let entries = changes["changes"] as? [[String: Any]] ?? []
            #expect(entries.count == 1 && entries.first?["op"] as? String == "reload", "\(entries)")
            let none = try HTTPTestSupport.json(try await get("/lists/mine/changes?since=\(changes["version"] ?? "")"))
            #expect((none["changes"] as? [[String: Any]])?.isEmpty == true)

            // A caller's cursor is not the whole list's, nor the other way round.
            let anaNext = try #require(
                try Page.decode(Array(try await get("/lists/mine/items?limit=1", ana).body.readableBytesView)).next
            )
            let operatorNext = try #require(
                try Page.decode(Array(try await get("/lists/mine/items?limit=1").body.readableBytesView)).next
            )
            #expect(try await get("/lists/mine/items?cursor=\(anaNext)").status == .badRequest)
            #expect(try await get("/lists/mine/items?cursor=\(operatorNext)", ana).status == .badRequest)
            // Callers still read their own slice only.
            #expect(try ScopedListTests.ids(try await get("/lists/mine/items", bo)) == ["b1"])
        }
    }

    /// A caller's JWT that verifies does not write to a list without a scope (API.md rule 6):
    /// `401` saying so, not that the token is not valid (a client would get another in
    /// vain); nothing is stored. A token that does not verify is still "not valid".
    @Test func aJWTWritesNoListWithoutAScopeAndSaysWhy() async throws {
        let fixture = try ScopedListTests.Fixture()
        try await fixture.run { client in
            let ana = try await ScopedListTests.headers("ana")
            let body = ByteBuffer(string: #"{"id": "n1", "data": {"title": "n1"}}"#)
            let refused = try await client.execute(uri: "/lists/notes/items", method: .post, headers: ana, body: body)
            try ProblemTests.expectProblem(refused, status: 401, type: "unauthorized")
            let detail = try HTTPTestSupport.json(refused)["detail"] as? String ?? ""
            #expect(detail.contains("writes only to a list with a scope"), "\(detail)")
            #expect(refused.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
            var forged = ana
            forged[.authorization] = (ana[.authorization] ?? "") + "x"
            let notValid = try await client.execute(
                uri: "/lists/notes/items",
                method: .post,
                headers: forged,
                body: body
            )
            #expect(try HTTPTestSupport.json(notValid)["detail"] as? String == "The bearer token is not valid.")
            let operatorToken: HTTPFields = [.authorization: "Bearer \(ScopedListTests.writeToken)"]
            let page = try await client.execute(uri: "/lists/notes/items", method: .get, headers: operatorToken)
            #expect(try ScopedListTests.ids(page) == [], "a refused write stored an item")
        }
    }
}
