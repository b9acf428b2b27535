import DataMediator
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import DataMediatorHTTP

/// An id in a path is read as the client sent it: the unencoded form of an id with `/`
/// addresses that id, empty segments included (`x//y`, `trail/`, `/`), where the router's
/// own reading drops them and once reached another item (`x/y`) or the list's pages.
@Suite struct ItemPathTests {
    static let ids = ["x//y", "x/y", "trail/", "/", "/lead"]

    static func id(_ response: TestResponse) throws -> String? {
        let json = try HTTPTestSupport.json(response)
        return ((json["item"] as? [String: Any]) ?? json)["id"] as? String
    }

    @Test func everySegmentOfTheUnencodedPathIsTheId() async throws {
        let fixture = try WriteRouteTests.Fixture()
        try await fixture.run { client in
            for id in Self.ids {
                let put = try await client.execute(
                    uri: "/lists/notes/items/" + PathSegment.encode(id),
                    method: .put,
                    headers: WriteRouteTests.headers(),
                    body: WriteRouteTests.body(#"{"data": {"title": "\#(id)"}}"#)
                )
                #expect(put.status == .created, "\(id)")
            }
            for id in Self.ids {
                let read = try await client.execute(uri: "/lists/notes/items/" + id, method: .get)
                let got = try Self.id(read)
                #expect(read.status == .ok && got == id, "\(id)")
            }
            // A write through the unencoded path changes that item, not its neighbour.
            let patched = try await client.execute(
                uri: "/lists/notes/items/x//y",
                method: .patch,
                headers: WriteRouteTests.headers(),
                body: WriteRouteTests.body(#"{"data": {"title": "patched"}}"#)
            )
            #expect(try Self.id(patched) == "x//y")
            let neighbour = try HTTPTestSupport.json(
                try await client.execute(uri: "/lists/notes/items/x%2Fy", method: .get)
            )
            #expect(((neighbour["item"] as? [String: Any])?["data"] as? [String: Any])?["title"] as? String == "x/y")
            let deleted = try await client.execute(
                uri: "/lists/notes/items/trail/",
                method: .delete,
                headers: WriteRouteTests.headers()
            )
            #expect(deleted.status == .noContent)
            #expect(try await client.execute(uri: "/lists/notes/items/trail%2F", method: .get).status == .notFound)
            // `/items/` names the empty id, which no item has: not the list's first page.
            let empty = try await client.execute(uri: "/lists/notes/items/", method: .get)
            #expect(empty.status == .notFound)
            #expect(empty.headers[.contentType] == "application/problem+json")
            #expect(try await client.execute(uri: "/lists/notes/items", method: .get).status == .ok)
            // Every method reads `/items//` as the item `/`, which the router reads as the
            // collection: writes reach the item, POST is not served there.
            let headers = WriteRouteTests.headers()
            let patchedSlash = try await client.execute(
                uri: "/lists/notes/items//",
                method: .patch,
                headers: headers,
                body: WriteRouteTests.body(#"{"data": {"title": "slash"}}"#)
            )
            #expect(try Self.id(patchedSlash) == "/")
            let post = try await client.execute(
                uri: "/lists/notes/items//",
                method: .post,
                headers: headers,
                body: WriteRouteTests.body(#"{"id": "p1", "data": {"title": "p"}}"#)
            )
            #expect(post.status == .methodNotAllowed && post.headers[.allow]?.contains("PUT") == true)
            let options = try await client.execute(uri: "/lists/notes/items//", method: .options)
            #expect(options.headers[.allow] == "GET, HEAD, OPTIONS, PUT, PATCH, DELETE")
            #expect(
                try await client.execute(uri: "/lists/notes/items//", method: .delete, headers: headers).status
                    == .noContent
            )
            #expect(try await client.execute(uri: "/lists/notes/items/%2F", method: .get).status == .notFound)
            // `.` and `..` are no ids: URLs resolve them away.
            for id in [".", ".."] {
                let dotted = try await client.execute(
                    uri: "/lists/notes/items",
                    method: .post,
                    headers: headers,
                    body: WriteRouteTests.body(#"{"id": "\#(id)", "data": {"title": "d"}}"#)
                )
                #expect(dotted.status == .unprocessableContent, "\(id)")
            }
        }
    }
}
