import DataMediator
import DataMediatorSQL
import DataMediatorSQLite
import DataMediatorTesting
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

@testable import DataMediatorHTTP

/// A list scoped to each caller by a JWT claim, over the same table as a global list: each
/// caller reads and writes their own slice only, and every list over the table logs every
/// write.
@Suite struct ScopedListTests {
    static let writeToken = "operator-token-1"

    /// Two writable lists over one `notes` table of a new SQLite store: `notes` (global) and
    /// `mine` (scoped by `owner` to the claim `mineClaim`, `sub` unless told, with an
    /// optional parameter `tag`; `owner` of `ownerType`, text unless told).
    final class Fixture: Sendable {
        let temporary: TemporaryStore
        let registry: ListRegistry

        init(mineClaim: String = "sub", ownerType: FieldType = .string) throws {
            temporary = try TemporaryStore("dm-scoped")
            let store = temporary.store
            let types: [String: FieldType] = ["title": .string, "owner": ownerType, "tag": .string]
            let source = StoreSource(
                kind: .table("notes"),
                fieldTypes: types.merging(["id": .string, "rev": .integer]) { $1 }
            )
            func list(_ name: String, scope: ListScope?) -> ListDefinition {
                ListDefinition(
                    name: name,
                    title: name,
                    idField: "id",
                    revisionField: "rev",
                    views: [
                        View(
                            name: "all",
                            sort: [SortKey("title")],
                            idField: "id",
                            cellType: .fixed("note"),
                            fields: ["title", "owner", "tag"],
                            parameters: [ViewParameter(name: "tag", field: "tag", type: .string, isRequired: false)]
                        )
                    ],
                    isWritable: true,
                    rules: FieldRules(types: types, required: ["title"]),
                    scope: scope
                )
            }
            let signer = CursorSigner(secret: SampleList.secret)
            let notifier = ChangeNotifier()
            registry = ListRegistry([
                try store.adapter(for: list("notes", scope: nil), source: source, signer: signer, notifier: notifier),
                try store.adapter(
                    for: list("mine", scope: ListScope(field: "owner", claim: mineClaim)),
                    source: source,
                    signer: signer,
                    notifier: notifier
                ),
            ])
        }

        static func claims(of verifier: ClaimsVerifier) -> @Sendable (String?) async throws -> [String: JSONValue] {
            { authorization in try await verifier.claims(fromAuthorization: authorization) }
        }

        func run(
            verifies: Bool = true,
            readTokens: [String] = [],
            writeTokens: [String] = [ScopedListTests.writeToken],
            _ test: @escaping @Sendable (any TestClientProtocol) async throws -> Void
        ) async throws {
            let verifier = try await ClaimsVerifier(ClaimsConfiguration(secret: ClaimsTestKeys.secret, keySetFile: nil))
            let router = buildRouter(
                registry: registry,
                configuration: HTTPServerConfiguration(
                    writeTokens: writeTokens,
                    readTokens: readTokens,
                    claims: verifies ? Self.claims(of: verifier) : nil
                )
            )
            try await Application(router: router).test(.router) { client in try await test(client) }
        }
    }

    /// The `Authorization` and `Content-Type` of a request by the holder of `sub`'s token.
    static func headers(_ sub: String, claims: [String: JSONValue] = [:]) async throws -> HTTPFields {
        var all = claims
        all["sub"] = .string(sub)
        all["exp"] = .integer(Int64(Date().timeIntervalSince1970) + 600)
        let token = try await ClaimsTestKeys.hs256(all)
        return [.authorization: "Bearer \(token)", .contentType: "application/json"]
    }

    /// Creates in `mine`, for each (caller's headers, id), an item of that id and title.
    static func create(_ items: [(HTTPFields, String)], _ client: any TestClientProtocol) async throws {
        for (headers, id) in items {
            let created = try await client.execute(
                uri: "/lists/mine/items",
                method: .post,
                headers: headers,
                body: ByteBuffer(string: #"{"id": "\#(id)", "data": {"title": "\#(id)"}}"#)
            )
            #expect(created.status == .created)
        }
    }

    static func ids(_ response: TestResponse) throws -> [String] {
        let page = try Page.decode(Array(response.body.readableBytesView))
        return page.sections.filter { $0.kind == .items }.flatMap(\.items).map(\.id)
    }

    @Test func eachCallerReadsAndWritesTheirOwnSliceOnly() async throws {
        let fixture = try Fixture()
        try await fixture.run { client in
            let ana = try await Self.headers("ana")
            let bo = try await Self.headers("bo")
            for (headers, title) in [(ana, "a1"), (ana, "a2"), (bo, "b1")] {
                let created = try await client.execute(
                    uri: "/lists/mine/items",
                    method: .post,
                    headers: headers,
                    body: ByteBuffer(string: #"{"id": "\#(title)", "data": {"title": "\#(title)", "tag": "x"}}"#)
                )
                #expect(created.status == .created)
                let data = try HTTPTestSupport.json(created)["data"] as? [String: Any]
                // The scope field is the caller's claim, not the body's.
                #expect(data?["owner"] as? String == (title.hasPrefix("a") ? "ana" : "bo"))
            }
            let anaPage = try await client.execute(uri: "/lists/mine/items", method: .get, headers: ana)
            #expect(try Self.ids(anaPage) == ["a1", "a2"])
            let boPage = try await client.execute(uri: "/lists/mine/items", method: .get, headers: bo)
            #expect(try Self.ids(boPage) == ["b1"])
            // Another caller's item does not exist for them: read, replace, patch, delete.
            let read = try await client.execute(uri: "/lists/mine/items/a1", method: .get, headers: bo)
            #expect(read.status == .notFound)
            for method in [HTTPRequest.Method.put, .patch, .delete] {
                let answer = try await client.execute(
                    uri: "/lists/mine/items/a1",
                    method: method,
                    headers: bo,
                    body: ByteBuffer(string: #"{"data": {"title": "taken"}}"#)
                )
                #expect(answer.status == .notFound, "\(method)")
            }
            // Another caller's id is taken; no hint that a PUT would replace it (it is not
            // found by one).
            let taken = try await client.execute(
                uri: "/lists/mine/items",
                method: .post,
                headers: bo,
                body: ByteBuffer(string: #"{"id": "a1", "data": {"title": "mine too"}}"#)
            )
            #expect(taken.status == .conflict)
            let detail = try HTTPTestSupport.json(taken)["detail"] as? String ?? ""
            #expect(detail.contains("is taken") && !detail.contains("PUT"), "\(detail)")
            // A body that names another owner is forbidden.
            let forged = try await client.execute(
                uri: "/lists/mine/items",
                method: .post,
                headers: bo,
                body: ByteBuffer(string: #"{"data": {"title": "b2", "owner": "ana"}}"#)
            )
            #expect(forged.status == .forbidden)
            // Sections count the caller's items; the global list sees everyone's.
            let sections = try HTTPTestSupport.json(
                try await client.execute(uri: "/lists/mine/sections", method: .get, headers: bo)
            )
            #expect(sections["total"] as? Int == 1)
            let all = try await client.execute(uri: "/lists/notes/items", method: .get)
            #expect(try Self.ids(all) == ["a1", "a2", "b1"])
            // Each caller's changes hold their own writes; the global list's hold all of them.
            let boChanges = try HTTPTestSupport.json(
                try await client.execute(uri: "/lists/mine/changes?since=0", method: .get, headers: bo)
            )
            let boIDs = (boChanges["changes"] as? [[String: Any]] ?? []).compactMap {
                ($0["item"] as? [String: Any])?["id"] as? String
            }
            #expect(boIDs == ["b1"])
            let allChanges = try HTTPTestSupport.json(
                try await client.execute(uri: "/lists/notes/changes?since=0", method: .get)
            )
            #expect((allChanges["changes"] as? [[String: Any]])?.count == 3)
        }
    }

    @Test func aCursorOfOneCallersSliceIsRefusedForAnother() async throws {
        let fixture = try Fixture()
        try await fixture.run { client in
            let ana = try await Self.headers("ana")
            for title in ["a1", "a2"] {
                _ = try await client.execute(
                    uri: "/lists/mine/items",
                    method: .post,
                    headers: ana,
                    body: ByteBuffer(string: #"{"data": {"title": "\#(title)"}}"#)
                )
            }
            let first = try await client.execute(uri: "/lists/mine/items?limit=1", method: .get, headers: ana)
            let next = try #require(try Page.decode(Array(first.body.readableBytesView)).next)
            let own = try await client.execute(
                uri: "/lists/mine/items?limit=1&cursor=\(next)",
                method: .get,
                headers: ana
            )
            #expect(own.status == .ok)
            let bo = try await Self.headers("bo")
            let other = try await client.execute(
                uri: "/lists/mine/items?limit=1&cursor=\(next)",
                method: .get,
                headers: bo
            )
            #expect(other.status == .badRequest)
            #expect(try HTTPTestSupport.json(other)["type"] as? String == "/problems/cursor-mismatch")
        }
    }

    @Test func withoutAValidTokenAScopedListAnswers401AndAJWTNeverWritesAGlobalList() async throws {
        let fixture = try Fixture()
        try await fixture.run { client in
            for headers: HTTPFields in [[:], [.authorization: "Bearer not-a-token"]] {
                let answer = try await client.execute(uri: "/lists/mine/items", method: .get, headers: headers)
                #expect(answer.status == .unauthorized)
                #expect(answer.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
            }
            let noClaim = try await client.execute(
                uri: "/lists/mine/items",
                method: .get,
                headers: [.authorization: "Bearer \(try await ClaimsTestKeys.hs256(["name": .string("ana")]))"]
            )
            #expect(noClaim.status == .unauthorized)
            #expect((try HTTPTestSupport.json(noClaim)["detail"] as? String)?.contains("'sub'") == true)
            // The challenge says why too (RFC 6750 3), as every other refusal of a token does.
            let challenge = noClaim.headers[.wwwAuthenticate] ?? ""
            #expect(challenge.contains(#"error="invalid_token", error_description=""#), "\(challenge)")
            #expect(challenge.contains("'sub'"), "\(challenge)")
            // An empty claim names no one, and a claim that is not of the scope field's type
            // (text here; RFC 7519's `sub` is text) is not matched to an empty slice: both are
            // refused, for reads and writes alike.
            let mistyped: [JSONValue] = [.integer(5), .bool(true), .object(["a": .string("ana")]), .array([])]
            let refusals = [(JSONValue.string(""), "'sub' is empty")] + mistyped.map { ($0, "'sub' is not a string") }
            for (claim, refusal) in refusals {
                let token = try await ClaimsTestKeys.hs256(["sub": claim])
                for method: HTTPRequest.Method in [.get, .post] {
                    let answer = try await client.execute(
                        uri: "/lists/mine/items",
                        method: method,
                        headers: [.authorization: "Bearer \(token)", .contentType: "application/json"],
                        body: ByteBuffer(string: #"{"data": {"title": "n"}}"#)
                    )
                    #expect(answer.status == .unauthorized, "\(claim) \(method)")
                    #expect(answer.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
                    let detail = try HTTPTestSupport.json(answer)["detail"] as? String
                    #expect(detail?.contains(refusal) == true, "\(claim) \(method): \(detail ?? "")")
                }
            }
            let jwtWrite = try await client.execute(
                uri: "/lists/notes/items",
                method: .post,
                headers: try await Self.headers("ana"),
                body: ByteBuffer(string: #"{"data": {"title": "n"}}"#)
            )
            #expect(jwtWrite.status == .unauthorized)
            // The operator's write token writes any slice, and the owner it names.
            let operatorWrite = try await client.execute(
                uri: "/lists/mine/items",
                method: .post,
                headers: [.authorization: "Bearer \(Self.writeToken)", .contentType: "application/json"],
                body: ByteBuffer(string: #"{"data": {"title": "o", "owner": "bo"}}"#)
            )
            #expect(operatorWrite.status == .created)
        }
        try await fixture.run(verifies: false) { client in
            let answer = try await client.execute(
                uri: "/lists/mine/items",
                method: .get,
                headers: try await Self.headers("ana")
            )
            #expect(answer.status == .unauthorized)
        }
    }

    @Test func withReadTokensAScopedListIsReadWithAJWTAndOtherListsWithAReadToken() async throws {
        let fixture = try Fixture()
        try await fixture.run(readTokens: ["reader-1"]) { client in
            let ana = try await Self.headers("ana")
            let mine = try await client.execute(uri: "/lists/mine/items", method: .get, headers: ana)
            #expect(mine.status == .ok)
            let notes = try await client.execute(uri: "/lists/notes/items", method: .get, headers: ana)
            #expect(notes.status == .unauthorized)
            let reader: HTTPFields = [.authorization: "Bearer reader-1"]
            #expect(try await client.execute(uri: "/lists/notes/items", method: .get, headers: reader).status == .ok)
            // The read token is no JWT: the scoped list asks for one.
            #expect(
                try await client.execute(uri: "/lists/mine/items", method: .get, headers: reader).status
                    == .unauthorized
            )
        }
    }

    @Test func eachCallersEventStreamCarriesTheirOwnWritesOnly() async throws {
        let fixture = try Fixture()
        let mine = try fixture.registry.adapter(named: "mine")
        let notes = try fixture.registry.adapter(named: "notes")
        let start = try await mine.currentVersion()
        let settings = EventConfiguration(heartbeat: .milliseconds(50))
        var recorders: [String: RecordingWriter] = [:]
        var streams: [Task<Void, any Error>] = []
        for sub in ["ana", "bo"] {
            let recorder = RecordingWriter()
            recorders[sub] = recorder
            let view = try mine.definition.view(named: nil, slice: SliceRequest(claims: ["sub": .string(sub)]))
            streams.append(
                Task {
                    var writer = recorder
                    try await EventStream(adapter: mine, view: view, start: start, settings: settings).run(
                        into: &writer
                    )
                }
            )
        }
        // Ana writes through her list; the operator writes one of Bo's through the global one.
        let ana = WriteScope(field: "owner", value: .string("ana"))
        _ = try await mine.create(
            body: .object(["id": .string("a1"), "data": .object(["title": .string("a")])]),
            scope: ana
        )
        _ = try await notes.create(
            body: .object(["id": .string("b1"), "data": .object(["title": .string("b"), "owner": .string("bo")])])
        )
        // Ana's item moves to Bo: it leaves her stream and enters his.
        _ = try await notes.patch(id: "a1", body: .object(["data": .object(["owner": .string("bo")])]))
        for recorder in recorders.values { try await EventStreamTests.waitFor(recorder, events: 2) }
        for stream in streams { stream.cancel() }
        for stream in streams { _ = await stream.result }
        #expect(recorders["ana"]?.events.map(\.event) == ["insert", "delete"])
        #expect(recorders["ana"]?.events.map(\.id) == ["\(start + 1)", "\(start + 3)"])
        #expect(recorders["bo"]?.events.map(\.event) == ["insert", "insert"])
        #expect(recorders["bo"]?.events.map(\.id) == ["\(start + 2)", "\(start + 3)"])
    }

    /// A scoped list's event stream ends when the token that opened it expires: it never
    /// carries a caller's slice past their token (the client reconnects with a fresh one).
    /// The route takes the end from the token's `exp` and the verifier's leeway
    /// (``ChangeRoutes/expiry(of:leeway:)``), and a stream ends there whatever it waits for.
    @Test func aScopedStreamEndsWhenItsTokenExpires() async throws {
        let now = Date().timeIntervalSince1970
        let inAMinute = try #require(ChangeRoutes.expiry(of: ["exp": .integer(Int64(now) + 60)], leeway: .zero))
        #expect(inAMinute > .now + .seconds(58) && inAMinute < .now + .seconds(61))
        #expect(try #require(ChangeRoutes.expiry(of: ["exp": .number(now - 5)], leeway: .zero)) <= .now)
        // A token past `exp` but within the leeway opens pages, so its stream runs to the
        // leeway's end too (it ended at once: the client reconnected again and again).
        let lenient = try #require(ChangeRoutes.expiry(of: ["exp": .number(now - 2)], leeway: .seconds(5)))
        #expect(lenient > .now + .seconds(2) && lenient < .now + .seconds(4))
        #expect(HTTPServerConfiguration().tokenLeeway == ClaimsConfiguration.defaultLeeway)
        #expect(
            ChangeRoutes.expiry(of: ["sub": .string("ana")], leeway: .zero) == nil
                && ChangeRoutes.expiry(of: nil, leeway: .zero) == nil
        )
        let fixture = try Fixture()
        let mine = try fixture.registry.adapter(named: "mine")
        let view = try mine.definition.view(named: nil, slice: SliceRequest(claims: ["sub": .string("ana")]))
        var stream = EventStream(
            adapter: mine,
            view: view,
            start: try await mine.currentVersion(),
            settings: EventConfiguration(heartbeat: .seconds(10))
        )
        stream.ends = .now + .milliseconds(200)
        var writer = RecordingWriter()
        // Without its end the stream would wait for writes or its heartbeat (10 s) forever.
        try await stream.run(into: &writer)
        #expect(writer.text.withLock { $0 }.hasPrefix("retry: 2000"))
        // Said last, so that a client tells it from a restart (review 98 #3).
        #expect(writer.text.withLock { $0 }.hasSuffix(": token expired; open the stream again with a fresh token\n\n"))
    }
}
