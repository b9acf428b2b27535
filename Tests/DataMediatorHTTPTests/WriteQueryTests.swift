import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// A write takes no query parameter (API.md, scoped lists' rule 2): one a client meant to
/// narrow or steer the write (`?view=`, a view's parameter) is refused before anything is
/// stored, not ignored as the write goes on; names that begin with `_` are ignored.
@Suite struct WriteQueryTests {
    @Test func aWriteWithAQueryParameterIsRefusedAndStoresNothing() async throws {
        let fixture = try WriteRouteTests.Fixture()
        try await fixture.run { client in
            let created = try await client.execute(
                uri: "/lists/notes/items?_=1",
                method: .post,
                headers: WriteRouteTests.headers(),
                body: WriteRouteTests.body(#"{"id": "n1", "data": {"title": "first"}}"#)
            )
            #expect(created.status == .created, "a cache buster is ignored")
            let before = try await fixture.state()
            let body = WriteRouteTests.body(#"{"data": {"title": "changed"}}"#)
            let writes: [(HTTPRequest.Method, String, ByteBuffer?)] = [
                (.post, "/lists/notes/items?view=all", WriteRouteTests.body(#"{"id": "n2", "data": {"title": "x"}}"#)),
                (.put, "/lists/notes/items/n1?game=8", body),
                (.put, "/lists/notes/items/n3?bogus=1", body),
                (.patch, "/lists/notes/items/n1?view=all&_=2", body),
                (.delete, "/lists/notes/items/n1?view=nope", nil),
            ]
            for (method, uri, body) in writes {
                let refused = try await client.execute(
                    uri: uri,
                    method: method,
                    headers: WriteRouteTests.headers(),
                    body: body
                )
                try ProblemTests.expectProblem(refused, status: 400, type: "unknown-parameter")
                let detail = try HTTPTestSupport.json(refused)["detail"] as? String ?? ""
                #expect(detail.contains("takes none"), "\(method) \(uri): \(detail)")
            }
            #expect(try await fixture.state() == before, "a refused write changed the store")
            let item = try await client.execute(uri: "/lists/notes/items/n1", method: .get)
            let cell = try HTTPTestSupport.json(item)["item"] as? [String: Any]
            #expect(cell?["rev"] as? String == "1" && (cell?["data"] as? [String: Any])?["title"] as? String == "first")
        }
    }
}
