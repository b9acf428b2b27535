import DataMediator
import HTTPTypes
import HummingbirdTesting
import Testing

/// `If-Match` and `If-None-Match` on writes (RFC 9110 §13.1): the ETag of a write's answer
/// or of `GET /items/{id}` holds while the item (or its place) is as it was; otherwise the
/// write answers `412 precondition-failed` and stores nothing.
@Suite struct ConditionalWriteTests {
    typealias Fixture = WriteRouteTests.Fixture

    static func headers(_ extra: HTTPFields = [:]) -> HTTPFields { WriteRouteTests.headers(extra) }

    static func write(
        _ client: any TestClientProtocol,
        _ method: HTTPRequest.Method,
        _ id: String,
        _ body: String?,
        _ extra: HTTPFields
    ) async throws -> TestResponse {
        try await client.execute(
            uri: "/lists/notes/items/\(id)",
            method: method,
            headers: headers(extra),
            body: body.map(WriteRouteTests.body)
        )
    }

    @Test func aWriteHoldsOnlyWhileTheItemHasTheETagItNames() async throws {
        let fixture = try Fixture()
        try await fixture.run { client in
            let created = try await Self.write(client, .put, "n1", #"{"data": {"title": "one"}}"#, [:])
            let written = try #require(created.headers[.eTag])
            let read = try await client.execute(uri: "/lists/notes/items/n1", method: .get)
            let placed = try #require(read.headers[.eTag])
            #expect(placed != written)
            // Either tag holds now; the item's place's tag as GET answered it.
            let patched = try await Self.write(client, .patch, "n1", #"{"data": {"score": 1}}"#, [.ifMatch: placed])
            #expect(patched.status == .ok)
            let next = try #require(patched.headers[.eTag])
            #expect(next != written)
            // Both older tags are stale now, a weak tag never matches, `*` needs an item.
            let (before, version) = try await fixture.state()
            for (method, id, extra): (HTTPRequest.Method, String, HTTPFields) in [
                (.patch, "n1", [.ifMatch: written]), (.patch, "n1", [.ifMatch: placed]),
                (.put, "n1", [.ifMatch: "W/" + next]), (.delete, "n1", [.ifMatch: "\"x\", " + written]),
                (.put, "n2", [.ifMatch: "*"]), (.put, "n1", [.ifNoneMatch: "*"]), (.delete, "n1", [.ifNoneMatch: next]),
            ] {
                let body = method == .delete ? nil : #"{"data": {"title": "no"}}"#
                let refused = try await Self.write(client, method, id, body, extra)
                try ProblemTests.expectProblem(refused, status: 412, type: "precondition-failed")
            }
            #expect(try await fixture.state() == (before, version))
            // A weak tag is told apart: reading again would not help.
            let weak = try await Self.write(
                client,
                .patch,
                "n1",
                #"{"data": {"title": "no"}}"#,
                [.ifMatch: "W/" + next]
            )
            let said = try HTTPTestSupport.json(weak)["detail"] as? String
            #expect(said?.contains("never matches If-Match") == true, "\(String(describing: said))")
            // A client that sent the tag it was given learns where its W/ came from (probe 61).
            #expect(said?.contains("a cache between may have weakened it") == true, "\(String(describing: said))")
            let page = try await client.execute(
                uri: "/lists/notes/items/n1",
                method: .get,
                headers: [.ifMatch: "W/" + placed]
            )
            #expect((try HTTPTestSupport.json(page)["detail"] as? String)?.contains("never matches") == true)
            // The current tag in a list, `*` on an item, and a create where none is, hold.
            let listed = try await Self.write(
                client,
                .put,
                "n1",
                #"{"data": {"title": "two"}}"#,
                [.ifMatch: "\"x\", " + next]
            )
            #expect(listed.status == .ok)
            #expect(
                try await Self.write(client, .put, "n2", #"{"data": {"title": "new"}}"#, [.ifNoneMatch: "*"]).status
                    == .created
            )
            #expect(try await Self.write(client, .delete, "n2", nil, [.ifMatch: "*"]).status == .noContent)
        }
    }

    /// The tag `GET /items/{id}` answers names the item's place and the store's version,
    /// which every write moves: as `If-Match` of a write it holds while the item itself is
    /// as that answer showed it (another item's write between, a busy store, made it `412`),
    /// while the answer's own tag, and a read's `If-Match`, follow the whole answer.
    @Test func aLookupsTagHoldsForAWriteWhileTheItemIsUnchanged() async throws {
        let fixture = try Fixture()
        try await fixture.run { client in
            let put = try await Self.write(client, .put, "n1", #"{"data": {"title": "one"}}"#, [:])
            let read = try await client.execute(uri: "/lists/notes/items/n1", method: .get)
            let looked = try #require(read.headers[.eTag])
            // The tag the write answered is the item's own: a read's If-Match holds for it,
            // as a write's does (RFC 9110 13.1.1; it was 412).
            let written = try #require(put.headers[.eTag])
            let readWritten = try await client.execute(
                uri: "/lists/notes/items/n1",
                method: .get,
                headers: [.ifMatch: written]
            )
            #expect(readWritten.status == .ok && readWritten.headers[.eTag] == looked)
            // Another item, before it: its place and the store's version move.
            let other = try await Self.write(client, .put, "n0", #"{"data": {"title": "a first"}}"#, [:])
            #expect(other.status == .created)
            let again = try await client.execute(uri: "/lists/notes/items/n1", method: .get)
            #expect(again.headers[.eTag] != looked)
            let revalidated = try await client.execute(
                uri: "/lists/notes/items/n1",
                method: .get,
                headers: [.ifNoneMatch: looked]
            )
            #expect(revalidated.status == .ok)
            let readIfMatch = try await client.execute(
                uri: "/lists/notes/items/n1",
                method: .get,
                headers: [.ifMatch: looked]
            )
            try ProblemTests.expectProblem(readIfMatch, status: 412, type: "precondition-failed")
            // The item is as it was: the write holds, and its own change makes the tag stale.
            let patched = try await Self.write(client, .patch, "n1", #"{"data": {"score": 1}}"#, [.ifMatch: looked])
            #expect(patched.status == .ok)
            let (before, version) = try await fixture.state()
            for (method, extra): (HTTPRequest.Method, HTTPFields) in [
                (.patch, [.ifMatch: looked]), (.delete, [.ifMatch: looked]),
            ] {
                let refused = try await Self.write(
                    client,
                    method,
                    "n1",
                    method == .delete ? nil : "{\"data\": {}}",
                    extra
                )
                try ProblemTests.expectProblem(refused, status: 412, type: "precondition-failed")
            }
            #expect(try await fixture.state() == (before, version))
            // `If-None-Match` with the current lookup's tag refuses while the item is as shown.
            let current = try #require(
                try await client.execute(uri: "/lists/notes/items/n1", method: .get).headers[.eTag]
            )
            _ = try await Self.write(client, .put, "n2", #"{"data": {"title": "b"}}"#, [:])
            let unless = try await Self.write(client, .delete, "n1", nil, [.ifNoneMatch: current])
            try ProblemTests.expectProblem(unless, status: 412, type: "precondition-failed")
        }
    }

    /// On `POST` the target is the list, whose representation is its first page.
    @Test func aCreateHoldsOnlyWhileTheListsFirstPageHasTheETagItNames() async throws {
        let fixture = try Fixture()
        try await fixture.run { client in
            func post(_ extra: HTTPFields) async throws -> TestResponse {
                try await client.execute(
                    uri: "/lists/notes/items",
                    method: .post,
                    headers: Self.headers(extra),
                    body: WriteRouteTests.body(#"{"data": {"title": "p"}}"#)
                )
            }
            let page = try await client.execute(uri: "/lists/notes/items", method: .get)
            let current = try #require(page.headers[.eTag])
            for extra: HTTPFields in [[.ifMatch: "\"stale\""], [.ifNoneMatch: "*"], [.ifNoneMatch: current]] {
                try ProblemTests.expectProblem(try await post(extra), status: 412, type: "precondition-failed")
            }
            let weak = try await post([.ifMatch: "W/" + current])
            #expect((try HTTPTestSupport.json(weak)["detail"] as? String)?.contains("never matches") == true)
            #expect(try await fixture.state().count == 0)
            #expect(try await post([.ifMatch: current]).status == .created)
            // The list changed: the same tag no longer holds; `*` does.
            try ProblemTests.expectProblem(
                try await post([.ifMatch: current]),
                status: 412,
                type: "precondition-failed"
            )
            #expect(try await post([.ifMatch: "*"]).status == .created)
        }
    }

    /// A condition that is not `*` alone or a list of quoted tags is refused (400), not
    /// misread: `*` beside a tag was taken as `*`, an unquoted tag as one no item has.
    @Test func aConditionThatIsNotEntityTagsIs400AndStoresNothing() async throws {
        let fixture = try Fixture()
        try await fixture.run { client in
            let created = try await Self.write(client, .put, "n1", #"{"data": {"title": "one"}}"#, [:])
            let tag = try #require(created.headers[.eTag])
            let (before, version) = try await fixture.state()
            for extra: HTTPFields in [
                [.ifMatch: "*, " + tag], [.ifMatch: String(tag.dropFirst().dropLast())], [.ifMatch: tag + ", abc"],
                [.ifNoneMatch: "\"a\"b\""], [.ifMatch: "W/abc"], [.ifMatch: "*,"], [.ifNoneMatch: ","],
            ] {
                let refused = try await Self.write(client, .patch, "n1", #"{"data": {"title": "no"}}"#, extra)
                try ProblemTests.expectProblem(refused, status: 400, type: "bad-request")
                let post = try await client.execute(
                    uri: "/lists/notes/items",
                    method: .post,
                    headers: Self.headers(extra),
                    body: WriteRouteTests.body(#"{"data": {"title": "p"}}"#)
                )
                try ProblemTests.expectProblem(post, status: 400, type: "bad-request")
            }
            #expect(try await fixture.state() == (before, version))
            // Empty members of a list are skipped (RFC 9110 5.6.1), and a tag may hold a comma.
            let listed = try await Self.write(
                client,
                .patch,
                "n1",
                #"{"data": {"title": "two"}}"#,
                [.ifMatch: ", \"x,y\", " + tag]
            )
            #expect(listed.status == .ok)
        }
    }
}
