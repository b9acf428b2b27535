import DataMediator
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import DataMediatorHTTP

/// An `Idempotency-Key` belongs to the caller that sent it: the same key from another JWT
/// holder, or from another write token, is a new key (a new item), never a replay of (nor a
/// refusal that reveals) someone else's write.
@Suite struct IdempotencyCallerTests {
    static let key = HTTPField.Name.known("Idempotency-Key")
    static let otherToken = "operator-token-2"

    /// POSTs `body` to `list` with the key `k-1` and `headers`.
    static func post(
        _ client: any TestClientProtocol,
        _ list: String,
        _ headers: HTTPFields,
        _ body: String
    ) async throws -> TestResponse {
        var all = headers
        all[key] = "k-1"
        all[.contentType] = "application/json"
        return try await client.execute(
            uri: "/lists/\(list)/items",
            method: .post,
            headers: all,
            body: ByteBuffer(string: body)
        )
    }

    static func item(_ response: TestResponse) throws -> (id: String, owner: String?) {
        let json = try HTTPTestSupport.json(response)
        return (json["id"] as? String ?? "", (json["data"] as? [String: Any])?["owner"] as? String)
    }

    @Test func aKeyIsTheCallersOwn() async throws {
        let fixture = try ScopedListTests.Fixture()
        let tokens = [ScopedListTests.writeToken, Self.otherToken]
        try await fixture.run(writeTokens: tokens) { client in
            let ana = try await ScopedListTests.headers("ana")
            let bo = try await ScopedListTests.headers("bo")
            let body = #"{"data": {"title": "same"}}"#
            let anas = try await Self.post(client, "mine", ana, body)
            #expect(anas.status == .created)
            let bos = try await Self.post(client, "mine", bo, body)
            #expect(bos.status == .created && bos.headers[WriteRoutes.idempotentReplayed] == nil)
            let (anaID, anaOwner) = try Self.item(anas)
            let (boID, boOwner) = try Self.item(bos)
            #expect(anaOwner == "ana" && boOwner == "bo" && anaID != boID)
            // Each caller's retry replays their own first answer; another body is their own reuse.
            let again = try await Self.post(client, "mine", bo, body)
            let againID = try Self.item(again).id
            #expect(again.headers[WriteRoutes.idempotentReplayed] == "true" && againID == boID)
            let reused = try await Self.post(client, "mine", ana, #"{"data": {"title": "other"}}"#)
            #expect(reused.status == .unprocessableContent)
            // Two write tokens: two keys; each one's retry is its own replay.
            var created: [String] = []
            for token in tokens + [ScopedListTests.writeToken] {
                let answer = try await Self.post(client, "notes", [.authorization: "Bearer \(token)"], body)
                created.append(try Self.item(answer).id)
            }
            #expect(created[0] != created[1] && created[2] == created[0])
            // The same key for the global list and a JWT holder's slice of it: two writes.
            #expect(!created.contains(anaID) && !created.contains(boID))
            let notes = try HTTPTestSupport.json(try await client.execute(uri: "/lists/notes/sections", method: .get))
            #expect(notes["total"] as? Int == 4)
        }
    }

    /// Callers who share a slice (a list scoped by a team's claim) keep their keys apart:
    /// a key is its JWT's `sub` (with `iss`), and a token without `sub` is its own caller.
    /// (The key was the slice's: a teammate's create with the same key was answered as a
    /// replay of another's, and stored nothing.)
    @Test func callersOfOneSliceKeepTheirKeysApart() async throws {
        let fixture = try ScopedListTests.Fixture(mineClaim: "team")
        try await fixture.run { client in
            let body = #"{"data": {"title": "same"}}"#
            func token(_ claims: [String: JSONValue]) async throws -> HTTPFields {
                var all = claims
                all["exp"] = .integer(Int64(Date().timeIntervalSince1970) + 600)
                return [.authorization: "Bearer \(try await ClaimsTestKeys.hs256(all))"]
            }
            let ana = try await token(["sub": .string("ana"), "team": .string("red")])
            let bo = try await token(["sub": .string("bo"), "team": .string("red")])
            let anas = try await Self.post(client, "mine", ana, body)
            let bos = try await Self.post(client, "mine", bo, body)
            #expect(anas.status == .created && bos.status == .created, "\(anas.status) \(bos.status)")
            #expect(bos.headers[WriteRoutes.idempotentReplayed] == nil)
            #expect(try Self.item(anas).id != Self.item(bos).id)
            #expect(try Self.item(anas).owner == "red" && Self.item(bos).owner == "red")
            // Ana's retry, with a fresh token of hers, is a replay.
            let fresh = try await token(["sub": .string("ana"), "team": .string("red"), "n": .integer(1)])
            let again = try await Self.post(client, "mine", fresh, body)
            #expect(again.headers[WriteRoutes.idempotentReplayed] == "true")
            #expect(try Self.item(again).id == Self.item(anas).id)
            // Tokens without `sub`: each is its own caller; the same token's retry replays.
            let first = try await token(["team": .string("red"), "n": .integer(1)])
            let second = try await token(["team": .string("red"), "n": .integer(2)])
            let firsts = try await Self.post(client, "mine", first, body)
            let seconds = try await Self.post(client, "mine", second, body)
            let retried = try await Self.post(client, "mine", first, body)
            #expect(firsts.status == .created && seconds.status == .created)
            #expect(seconds.headers[WriteRoutes.idempotentReplayed] == nil)
            #expect(try Self.item(firsts).id != Self.item(seconds).id)
            #expect(retried.headers[WriteRoutes.idempotentReplayed] == "true")
            #expect(try Self.item(retried).id == Self.item(firsts).id)
        }
    }
}
