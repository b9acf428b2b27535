import DataMediator
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import DataMediatorHTTP

/// API.md's "Scoped lists" rules 1 and 6 to the letter, on ``ScopedListTests``' fixture: a
/// list's description names its views' parameters and its scope; a caller's `POST`, `PUT`
/// or `PATCH` that gives the scope field another value is `403 forbidden` and stores
/// nothing, while the static write tokens keep full access.
extension ScopedListTests {
    @Test func aListsDescriptionNamesItsParametersAndScope() async throws {
        let fixture = try Fixture()
        try await fixture.run { client in
            let ana = try await Self.headers("ana")
            let mine = try HTTPTestSupport.json(
                try await client.execute(uri: "/lists/mine", method: .get, headers: ana)
            )
            #expect(mine["scope"] as? [String: String] == ["field": "owner", "claim": "sub"])
            let views = try #require(mine["views"] as? [[String: Any]])
            let parameters = try #require(views.first?["parameters"] as? [[String: Any]])
            #expect(parameters.count == 1)
            #expect(parameters.first?["name"] as? String == "tag")
            #expect(parameters.first?["field"] as? String == "tag")
            #expect(parameters.first?["type"] as? String == "string")
            #expect(parameters.first?["required"] as? Bool == false)
            let notes = try HTTPTestSupport.json(try await client.execute(uri: "/lists/notes", method: .get))
            #expect(notes["scope"] is NSNull || notes["scope"] == nil)
        }
    }

    @Test func aCallersWriteThatGivesAnotherScopeValueIsForbiddenAndStoresNothing() async throws {
        let fixture = try Fixture()
        try await fixture.run { client in
            let ana = try await Self.headers("ana")
            let bo = try await Self.headers("bo")
            try await Self.create([(ana, "a1"), (bo, "b1")], client)
            let before = try await client.execute(uri: "/lists/notes/items", method: .get)
            let forged: [(HTTPRequest.Method, String, String)] = [
                (.post, "/lists/mine/items", #"{"id": "b2", "data": {"title": "b2", "owner": "ana"}}"#),
                (.put, "/lists/mine/items/b1", #"{"data": {"title": "b1", "owner": "ana"}}"#),
                (.put, "/lists/mine/items/b3", #"{"data": {"title": "b3", "owner": "ana"}}"#),
                (.patch, "/lists/mine/items/b1", #"{"data": {"owner": "ana"}}"#),
            ]
            for (method, uri, body) in forged {
                let answer = try await client.execute(
                    uri: uri,
                    method: method,
                    headers: bo,
                    body: ByteBuffer(string: body)
                )
                try ProblemTests.expectProblem(answer, status: 403, type: "forbidden")
            }
            // Nothing was stored or changed: the whole table reads as before, version included.
            let after = try await client.execute(uri: "/lists/notes/items", method: .get)
            #expect(Array(after.body.readableBytesView) == Array(before.body.readableBytesView))
            // Giving one's own value is no forgery.
            let own = try await client.execute(
                uri: "/lists/mine/items/b1",
                method: .put,
                headers: bo,
                body: ByteBuffer(string: #"{"data": {"title": "b1 again", "owner": "bo"}}"#)
            )
            #expect(own.status == .ok)
            // The static write token writes any owner's items.
            let operatorHeaders: HTTPFields = [
                .authorization: "Bearer \(Self.writeToken)", .contentType: "application/json",
            ]
            let made = try await client.execute(
                uri: "/lists/notes/items",
                method: .post,
                headers: operatorHeaders,
                body: ByteBuffer(string: #"{"id": "c1", "data": {"title": "c1", "owner": "bo"}}"#)
            )
            #expect(made.status == .created)
            let patched = try await client.execute(
                uri: "/lists/notes/items/a1",
                method: .patch,
                headers: operatorHeaders,
                body: ByteBuffer(string: #"{"data": {"owner": "bo"}}"#)
            )
            #expect(patched.status == .ok)
            let boPage = try await client.execute(uri: "/lists/mine/items", method: .get, headers: bo)
            #expect(try Self.ids(boPage) == ["a1", "b1", "c1"])
        }
    }
}
