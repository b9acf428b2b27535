import DataMediator
import DataMediatorHTTP
import DataMediatorSQL
import DataMediatorSQLite
import DataMediatorTesting
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// Writes over HTTP on the SQLite store: what they store and answer, and every refusal,
/// each leaving the store as it was.
@Suite struct WriteRouteTests {
    static let token = "test-token-1"

    /// A writable `notes` list in a new SQLite store, served with one write token.
    final class Fixture: Sendable {
        let temporary: TemporaryStore
        let registry: ListRegistry

        init() throws {
            temporary = try TemporaryStore("dm-write")
            let store = temporary.store
            let types: [String: FieldType] = [
                "title": .string, "score": .integer, "done": .boolean, "tags": .json, "weight": .number,
            ]
            let list = ListDefinition(
                name: "notes",
                title: "Notes",
                idField: "id",
                revisionField: "rev",
                views: [
                    View(
                        name: "all",
                        sort: [SortKey("title")],
                        idField: "id",
                        cellType: .fixed("note"),
                        fields: ["title", "score", "done", "tags", "weight"]
                    )
                ],
                isWritable: true,
                rules: FieldRules(types: types, required: ["title"])
            )
            let source = StoreSource(
                kind: .table("notes"),
                fieldTypes: types.merging(["id": .string, "rev": .integer]) { $1 }
            )
            let signer = CursorSigner(secret: SampleList.secret)
            registry = ListRegistry([
                try store.adapter(for: list, source: source, signer: signer),
                ListAdapter(
                    definition: SampleList.definition,
                    provider: ArrayDataProvider(items: SampleList.items(), idField: "id", views: SampleList.views),
                    signer: signer
                ),
            ])
        }

        func run(
            tokens: [String] = [WriteRouteTests.token],
            readTokens: [String] = [],
            _ test: @escaping @Sendable (any TestClientProtocol) async throws -> Void
        ) async throws {
            let router = buildRouter(
                registry: registry,
                configuration: HTTPServerConfiguration(
                    writeTokens: tokens,
                    maximumBodySize: 4096,
                    readTokens: readTokens
                )
            )
            try await Application(router: router).test(.router) { client in try await test(client) }
        }

        /// The number of items and the version, as section info reads them.
        func state() async throws -> (count: Int, version: Int64) {
            let info = try await registry.adapter(named: "notes").sectionInfo(view: nil)
            return (info.total, info.version)
        }
    }

    static func headers(_ extra: HTTPFields = [:]) -> HTTPFields {
        var fields: HTTPFields = [.authorization: "Bearer \(token)", .contentType: "application/json"]
        for field in extra { fields[field.name] = field.value }
        return fields
    }

    static func body(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }

    @Test func createReplacePatchAndDeleteAnItem() async throws {
        let fixture = try Fixture()
        try await fixture.run { client in
            let created = try await client.execute(
                uri: "/lists/notes/items",
                method: .post,
                headers: Self.headers(),
                body: Self.body(#"{"id": "n/1", "data": {"title": "first", "score": 3, "tags": ["a"]}}"#)
            )
            #expect(created.status == .created)
            #expect(created.headers[.location] == "/lists/notes/items/n%2F1")
            let cell = try HTTPTestSupport.json(created)
            #expect(
                cell["id"] as? String == "n/1" && cell["rev"] as? String == "1" && cell["type"] as? String == "note"
            )
            #expect((cell["data"] as? [String: Any])?["tags"] as? [String] == ["a"])
            #expect(try await fixture.state() == (1, 1))

            let replaced = try await client.execute(
                uri: "/lists/notes/items/n%2F1",
                method: .put,
                headers: Self.headers(),
                body: Self.body(#"{"data": {"title": "second", "done": false}}"#)
            )
            #expect(replaced.status == .ok)
            let replacedCell = try HTTPTestSupport.json(replaced)
            #expect(replacedCell["rev"] as? String == "2")
            #expect((replacedCell["data"] as? [String: Any])?["score"] is NSNull)

            let patched = try await client.execute(
                uri: "/lists/notes/items/n/1",
                method: .patch,
                headers: Self.headers([.contentType: "application/merge-patch+json"]),
                body: Self.body(#"{"data": {"score": 9, "done": null}}"#)
            )
            #expect(patched.status == .ok)
            let data = try #require(try HTTPTestSupport.json(patched)["data"] as? [String: Any])
            #expect(data["title"] as? String == "second" && data["score"] as? Int == 9 && data["done"] is NSNull)

            let put = try await client.execute(
                uri: "/lists/notes/items/n2",
                method: .put,
                headers: Self.headers(),
                body: Self.body(#"{"data": {"title": "new"}}"#)
            )
            #expect(put.status == .created)
            #expect(try await fixture.state() == (2, 4))

            let page = try await client.execute(uri: "/lists/notes/items", method: .get)
            #expect(try Page.decode(Array(page.body.readableBytesView)).items.map(\.id) == ["n2", "n/1"])

            #expect(
                try await client.execute(uri: "/lists/notes/items/n2", method: .delete, headers: Self.headers()).status
                    == .noContent
            )
            #expect(try await client.execute(uri: "/lists/notes/items/n2", method: .get).status == .notFound)
            try ProblemTests.expectProblem(
                try await client.execute(uri: "/lists/notes/items/n2", method: .delete, headers: Self.headers()),
                status: 404,
                type: "unknown-item"
            )
            #expect(try await fixture.state() == (1, 5))

            let generated = try await client.execute(
                uri: "/lists/notes/items",
                method: .post,
                headers: Self.headers(),
                body: Self.body(#"{"data": {"title": "no id"}}"#)
            )
            #expect(generated.status == .created)
            #expect((try HTTPTestSupport.json(generated)["id"] as? String)?.count == 32)
            // RFC 6750: "Bearer" 1*SP token; several spaces are one separator.
            let spaced = try await client.execute(
                uri: "/lists/notes/items",
                method: .post,
                headers: Self.headers([.authorization: "Bearer   \(Self.token)"]),
                body: Self.body(#"{"data": {"title": "spaced"}}"#)
            )
            #expect(spaced.status == .created)
        }
    }

    @Test(
        "every refused write answers its problem and stores nothing",
        arguments: [
            (
                HTTPRequest.Method.post, "/lists/notes/items", [HTTPField.Name.authorization: ""],
                #"{"id": "x", "data": {"title": "t"}}"#, 401, "unauthorized"
            ),
            (
                .post, "/lists/notes/items", [.authorization: "Bearer wrong"], #"{"id": "x", "data": {"title": "t"}}"#,
                401, "unauthorized"
            ),
            (
                .post, "/lists/notes/items", [.authorization: "Basic dGVzdA=="],
                #"{"id": "x", "data": {"title": "t"}}"#, 401, "unauthorized"
            ),
            (
                .post, "/lists/notes/items", [.contentType: "text/plain"], #"{"id": "x", "data": {"title": "t"}}"#, 415,
                "unsupported-media-type"
            ),
            (
                .post, "/lists/notes/items", [.contentType: ""], #"{"id": "x", "data": {"title": "t"}}"#, 415,
                "unsupported-media-type"
            ),
            // A `+json` suffix names a subtype's structure (RFC 6838 4.2.8): it needs a subtype.
            (
                .post, "/lists/notes/items", [.contentType: "application/+json"],
                #"{"id": "x", "data": {"title": "t"}}"#, 415, "unsupported-media-type"
            ),
            // JSON is UTF-8 (RFC 8259 8.1): a body labelled in another charset is refused.
            (
                .post, "/lists/notes/items", [.contentType: "application/json; charset=latin1"],
                #"{"id": "x", "data": {"title": "t"}}"#, 415, "unsupported-media-type"
            ),
            // A body in a content coding the server does not decode is refused, not misread.
            (
                .put, "/lists/notes/items/existing", [.contentEncoding: "gzip"], #"{"data": {"title": "t"}}"#, 415,
                "unsupported-media-type"
            ),
            (
                .patch, "/lists/notes/items/existing", [.contentEncoding: "identity, br"], #"{"data": {"title": "t"}}"#,
                415, "unsupported-media-type"
            ),
            (.post, "/lists/notes/items", [:], String(repeating: " ", count: 5000) + "{}", 413, "body-too-large"),
            (.post, "/lists/notes/items", [:], #"{"id": "x", "data": {"title": "t"}"#, 400, "bad-request"),
            (.post, "/lists/notes/items", [:], #"[1, 2]"#, 422, "invalid-item"),
            (
                .post, "/lists/notes/items", [:], #"{"id": "x", "data": {"title": "t", "title": "u"}}"#, 400,
                "bad-request"
            ),
            (.post, "/lists/notes/items", [:], #"{"id": "x"}"#, 422, "invalid-item"),
            (
                .post, "/lists/notes/items", [:], #"{"id": "x", "data": {"title": "t"}, "extra": 1}"#, 422,
                "invalid-item"
            ),
            (
                .post, "/lists/notes/items", [:], #"{"id": "x", "data": {"title": "t", "colour": "red"}}"#, 422,
                "invalid-item"
            ),
            (.post, "/lists/notes/items", [:], #"{"id": "x", "data": {"title": 5}}"#, 422, "invalid-item"),
            (
                .post, "/lists/notes/items", [:], #"{"id": "x", "data": {"score": 1.5, "title": "t"}}"#, 422,
                "invalid-item"
            ),
            (.post, "/lists/notes/items", [:], #"{"id": "x", "data": {"score": 1}}"#, 422, "invalid-item"),
            (.post, "/lists/notes/items", [:], #"{"id": "x", "data": {"title": null}}"#, 422, "invalid-item"),
            (.post, "/lists/notes/items", [:], #"{"id": "", "data": {"title": "t"}}"#, 422, "invalid-item"),
            (.post, "/lists/notes/items", [:], #"{"id": "existing", "data": {"title": "t"}}"#, 409, "conflict"),
            (.patch, "/lists/notes/items/existing", [:], #"{"data": {"title": null}}"#, 422, "invalid-item"),
            (.patch, "/lists/notes/items/missing", [:], #"{"data": {"title": "t"}}"#, 404, "unknown-item"),
            // Field rules before the store (docs/writes-changes-events.md): a bad field of a
            // patch to an item that does not exist is 422, not 404 (probe 33).
            (.patch, "/lists/notes/items/missing", [:], #"{"data": {"title": 5}}"#, 422, "invalid-item"),
            (.patch, "/lists/notes/items/missing", [:], #"{"data": {"colour": "red"}}"#, 422, "invalid-item"),
            (.put, "/lists/notes/items/existing", [:], #"{"data": {"score": "high"}}"#, 422, "invalid-item"),
            (.post, "/lists/sample/items", [:], #"{"data": {"title": "t"}}"#, 405, "method-not-allowed"),
            (.delete, "/lists/sample/items/item-01", [:], "", 405, "method-not-allowed"),
            (.put, "/lists/notes/items", [:], #"{"data": {"title": "t"}}"#, 405, "method-not-allowed"),
        ]
    )
    func refusedWritesStoreNothing(
        method: HTTPRequest.Method,
        uri: String,
        extra: [HTTPField.Name: String],
        body: String,
        status: Int,
        type: String
    ) async throws {
        let fixture = try Fixture()
        try await fixture.run { client in
            let seed = try await client.execute(
                uri: "/lists/notes/items",
                method: .post,
                headers: Self.headers(),
                body: Self.body(#"{"id": "existing", "data": {"title": "kept", "score": 1}}"#)
            )
            #expect(seed.status == .created)
            let before = try await fixture.state()
            var headers = Self.headers()
            for (name, value) in extra {
                if value.isEmpty { headers[name] = nil } else { headers[name] = value }
            }
            let response = try await client.execute(uri: uri, method: method, headers: headers, body: Self.body(body))
            try ProblemTests.expectProblem(response, status: status, type: type)
            if status == 401 { #expect(response.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true) }
            if extra[.contentEncoding] != nil { #expect(response.headers[.acceptEncoding] == "identity") }
            if status == 422, type == "invalid-item" {
                #expect((try HTTPTestSupport.json(response)["errors"] as? [[String: String]])?.isEmpty == false)
            }
            #expect(try await fixture.state() == before)
            let kept = try HTTPTestSupport.json(
                try await client.execute(uri: "/lists/notes/items/existing", method: .get)
            )
            #expect((kept["item"] as? [String: Any])?["rev"] as? String == "1")
        }
    }

    @Test func withoutATokenConfiguredEveryWriteIsForbidden() async throws {
        let fixture = try Fixture()
        try await fixture.run(tokens: []) { client in
            let response = try await client.execute(
                uri: "/lists/notes/items",
                method: .post,
                headers: Self.headers(),
                body: Self.body(#"{"data": {"title": "t"}}"#)
            )
            try ProblemTests.expectProblem(response, status: 403, type: "forbidden")
            #expect(try await fixture.state() == (0, 0))
        }
    }

    @Test func optionsAndA405NameTheWriteMethodsOfWritableListsOnly() async throws {
        let fixture = try Fixture()
        try await fixture.run { client in
            for (uri, allow) in [
                ("/lists/notes/items", "GET, HEAD, OPTIONS, POST"),
                ("/lists/notes/items/n1", "GET, HEAD, OPTIONS, PUT, PATCH, DELETE"),
                ("/lists/notes/items/n%2F1/x", "GET, HEAD, OPTIONS, PUT, PATCH, DELETE"),
                ("/lists/sample/items", "GET, HEAD, OPTIONS"),
                ("/lists/sample/items/item-01", "GET, HEAD, OPTIONS"),
            ] {
                let response = try await client.execute(uri: uri, method: .options)
                #expect(response.status == .noContent && response.headers[.allow] == allow, "\(uri)")
                // A method no route serves answers 405 with the same methods.
                let trace = try await client.execute(uri: uri, method: try #require(HTTPRequest.Method("TRACE")))
                try ProblemTests.expectProblem(trace, status: 405, type: "method-not-allowed")
                #expect(trace.headers[.allow] == allow, "TRACE \(uri)")
            }
        }
    }

    @Test func aChunkedBodyOverTheLimitIs413() async throws {
        let fixture = try Fixture()
        try await fixture.run { client in
            var headers = Self.headers()
            headers[.transferEncoding] = "chunked"
            let response = try await client.execute(
                uri: "/lists/notes/items",
                method: .post,
                headers: headers,
                body: Self.body(#"{"data": {"title": ""# + String(repeating: "x", count: 10_000) + #""}}"#)
            )
            try ProblemTests.expectProblem(response, status: 413, type: "body-too-large")
            #expect(try await fixture.state() == (0, 0))
        }
    }

    @Test func aBodyNestedDeeperThanTheLimitIs400AndStoresNothing() async throws {
        let fixture = try Fixture()
        try await fixture.run { client in
            // Within the body size limit (4096 bytes here), far past the depth limit.
            let deep = String(repeating: "[", count: 1_000) + String(repeating: "]", count: 1_000)
            let response = try await client.execute(
                uri: "/lists/notes/items",
                method: .post,
                headers: Self.headers(),
                body: Self.body(#"{"data": {"title": "t", "tags": "# + deep + "}}")
            )
            try ProblemTests.expectProblem(response, status: 400, type: "bad-request")
            #expect((try HTTPTestSupport.json(response)["detail"] as? String)?.contains("at most 32") == true)
            #expect(try await fixture.state() == (0, 0))
        }
    }

    @Test func aWriteToAMissingItemNamesTheList() async throws {
        let fixture = try Fixture()
        try await fixture.run { client in
            let response = try await client.execute(
                uri: "/lists/notes/items/nope",
                method: .delete,
                headers: Self.headers()
            )
            #expect((try HTTPTestSupport.json(response)["detail"] as? String)?.contains("list 'notes'") == true)
        }
    }

    @Test func invalidItemsNameEachBadField() async throws {
        let fixture = try Fixture()
        try await fixture.run { client in
            let response = try await client.execute(
                uri: "/lists/notes/items",
                method: .post,
                headers: Self.headers(),
                body: Self.body(#"{"data": {"score": "x", "done": 1, "colour": "red"}}"#)
            )
            let errors = try #require(try HTTPTestSupport.json(response)["errors"] as? [[String: String]])
            #expect(Set(errors.compactMap { $0["field"] }) == ["score", "done", "colour", "title"])
            // A member beside `data` is named with the problems of `data`, in one answer.
            let both = try await client.execute(
                uri: "/lists/notes/items/n1",
                method: .put,
                headers: Self.headers(),
                body: Self.body(#"{"data": {"score": "x"}, "extra": 1}"#)
            )
            let named = try #require(try HTTPTestSupport.json(both)["errors"] as? [[String: String]])
            #expect(Set(named.compactMap { $0["field"] }) == ["extra", "score", "title"])
            // A patch's too, by type (its merged item is held to the rest).
            let patch = try await client.execute(
                uri: "/lists/notes/items/n1",
                method: .patch,
                headers: Self.headers(),
                body: Self.body(#"{"data": {"score": "x", "colour": 1}, "extra": 1}"#)
            )
            let patchNamed = try #require(try HTTPTestSupport.json(patch)["errors"] as? [[String: String]])
            #expect(Set(patchNamed.compactMap { $0["field"] }) == ["extra", "score", "colour"])
        }
    }
}
