import DataMediator
import DataMediatorHTTP
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// With read tokens, a caller without one learns nothing of what exists: whatever the
/// method, what is not served answers `401` as what is served does; the open routes stay
/// open.
@Suite struct ReadAccessTests {
    @Test func withoutATokenNoMethodTellsWhatExists() async throws {
        let router = buildRouter(
            registry: HTTPTestSupport.registry(),
            configuration: HTTPServerConfiguration(readTokens: ["reader"])
        )
        try await Application(router: router).test(.router) { client in
            for (method, path) in [
                (HTTPRequest.Method.get, "/nope"), (.options, "/nope"), (.post, "/nope"), (.delete, "/nope"),
                (HTTPRequest.Method(rawValue: "TRACE") ?? .get, "/nope"), (.options, "/lists/nope"),
                (.options, "/lists/sample"), (.post, "/lists/nope/sections"), (.get, "/lists/sample/items"),
            ] {
                let answer = try await client.execute(uri: path, method: method)
                #expect(answer.status == .unauthorized, "\(method) \(path)")
                #expect(answer.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true, "\(method) \(path)")
            }
            // With the token, the same requests say what they are.
            let reader: HTTPFields = [.authorization: "Bearer reader"]
            #expect(try await client.execute(uri: "/nope", method: .options, headers: reader).status == .notFound)
            #expect(try await client.execute(uri: "/lists/nope", method: .options, headers: reader).status == .notFound)
            #expect(
                try await client.execute(uri: "/lists/sample", method: .options, headers: reader).status == .noContent
            )
            // The open routes answer anyone.
            #expect(try await client.execute(uri: "/health", method: .get).status == .ok)
            #expect(try await client.execute(uri: "/health", method: .options).status == .noContent)
        }
    }

    /// `/ready` stays open, and its `503` names what cannot be served (lists, composites,
    /// columns) only to a holder of a read, write or metrics token when reads need one
    /// (review 105 #4: it named them to anyone while the store was broken).
    @Test func readinessSaysWhyOnlyToATokenHolder() async throws {
        let problem = "List 'secret' cannot be served: its table has no column 'reason'."
        for (readTokens, told) in [(["reader"], false), ([], true)] {
            var configuration = HTTPServerConfiguration(writeTokens: ["writer"], readTokens: readTokens)
            configuration.metricsTokens = ["scraper"]
            let router = buildRouter(
                registry: HTTPTestSupport.registry(),
                configuration: configuration,
                readiness: { problem }
            )
            try await Application(router: router).test(.router) { client in
                let open = try await client.execute(uri: "/ready", method: .get)
                try ProblemTests.expectProblem(open, status: 503, type: "not-ready")
                let said = try HTTPTestSupport.json(open)["detail"] as? String ?? ""
                #expect(said.contains("secret") == told, "\(said)")
                for token in ["reader", "writer", "scraper"] where !readTokens.isEmpty {
                    let answer = try await client.execute(
                        uri: "/ready",
                        method: .get,
                        headers: [.authorization: "Bearer \(token)"]
                    )
                    #expect(try HTTPTestSupport.json(answer)["detail"] as? String == problem, "\(token)")
                }
            }
        }
    }

    /// A browser's preflight carries no token: it is answered for a listed origin, while the
    /// same OPTIONS without the preflight's header is a read like any other.
    @Test func aPreflightNeedsNoToken() async throws {
        let router = buildRouter(
            registry: HTTPTestSupport.registry(),
            configuration: HTTPServerConfiguration(readTokens: ["reader"], corsOrigins: ["https://app.example"])
        )
        try await Application(router: router).test(.router) { client in
            let origin: HTTPFields = [.origin: "https://app.example"]
            var preflight = origin
            preflight[.accessControlRequestMethod] = "GET"
            let answered = try await client.execute(uri: "/lists/sample/items", method: .options, headers: preflight)
            #expect(answered.status == .noContent || answered.status == .ok)
            #expect(answered.headers[.accessControlAllowOrigin] == "https://app.example")
            let plain = try await client.execute(uri: "/lists/sample/items", method: .options, headers: origin)
            #expect(plain.status == .unauthorized)
        }
    }

    /// A scoped list's routes answer its JWT holders; without a token (nor a JWT) the
    /// methods that are not its reads are 401 as everywhere else.
    @Test func aScopedListTellsNothingWithoutAToken() async throws {
        let fixture = try ScopedListTests.Fixture()
        try await fixture.run(readTokens: ["reader"]) { client in
            for (method, path) in [
                (HTTPRequest.Method.options, "/lists/mine/items"), (.put, "/lists/mine/items"),
                (HTTPRequest.Method(rawValue: "TRACE") ?? .get, "/lists/mine/items/1"), (.get, "/lists/mine/nope"),
                (.options, "/lists/mine/sections"),
            ] {
                let answer = try await client.execute(uri: path, method: method)
                #expect(answer.status == .unauthorized, "\(method) \(path)")
            }
            // A malformed query, no token or one that is no JWT: answered as for a list that
            // does not exist, word for word.
            for headers: HTTPFields in [[:], [.authorization: "Bearer nope"], [.authorization: "Basic a"]] {
                for query in ["", "/items?limit=1&limit=2", "/items", "/sections?x=1", "/changes?since=x", "/items/1"] {
                    let scoped = try await client.execute(uri: "/lists/mine" + query, method: .get, headers: headers)
                    let unknown = try await client.execute(uri: "/lists/nope" + query, method: .get, headers: headers)
                    #expect(scoped.status == .unauthorized, "\(query) \(headers)")
                    // The problems but their `instance` (the path asked).
                    let said = [scoped, unknown].map { answer in
                        String(buffer: answer.body).replacingOccurrences(of: "/lists/mine", with: "/lists/nope")
                    }
                    #expect(
                        said[0] == said[1] && scoped.headers[.wwwAuthenticate] == unknown.headers[.wwwAuthenticate],
                        "\(query) \(headers): \(said[0]) / \(said[1])"
                    )
                }
            }
            // Writes too, to a scoped list and to a writable one without a scope: their own
            // `401`s ("Writes need ...", the JWT's wording) told which lists exist and which
            // are scoped (probe 33).
            let expired = try await ClaimsTestKeys.hs256(["sub": .string("ana"), "exp": .integer(1_000_000)])
            for headers: HTTPFields in [
                [:], [.authorization: "Bearer nope"], [.authorization: "Basic a"],
                [.authorization: "Bearer \(expired)"],
            ] {
                for (method, path) in [
                    (HTTPRequest.Method.post, "/items"), (.put, "/items/1"), (.patch, "/items/1"),
                    (.delete, "/items/1"),
                ] {
                    let unknown = try await client.execute(
                        uri: "/lists/nope" + path,
                        method: method,
                        headers: headers,
                        body: ByteBuffer(string: #"{"data": {}}"#)
                    )
                    for list in ["mine", "notes"] {
                        let answer = try await client.execute(
                            uri: "/lists/\(list)" + path,
                            method: method,
                            headers: headers,
                            body: ByteBuffer(string: #"{"data": {}}"#)
                        )
                        let said = String(buffer: answer.body).replacingOccurrences(
                            of: "/lists/\(list)",
                            with: "/lists/nope"
                        )
                        #expect(answer.status == .unauthorized, "\(method) \(list)\(path) \(headers)")
                        #expect(
                            said == String(buffer: unknown.body)
                                && answer.headers[.wwwAuthenticate] == unknown.headers[.wwwAuthenticate],
                            "\(method) \(list)\(path) \(headers): \(said) / \(String(buffer: unknown.body))"
                        )
                    }
                }
            }
            let ana = try await ScopedListTests.headers("ana")
            // A JWT holder writes their slice, and a write token writes.
            try await ScopedListTests.create([(ana, "a1")], client)
            let created = try await client.execute(
                uri: "/lists/notes/items",
                method: .post,
                headers: [.authorization: "Bearer \(ScopedListTests.writeToken)", .contentType: "application/json"],
                body: ByteBuffer(string: #"{"id": "n1", "data": {"title": "n"}}"#)
            )
            #expect(created.status == .created)
            #expect(
                try await client.execute(uri: "/lists/mine/items", method: .options, headers: ana).status == .noContent
            )
            #expect(try await client.execute(uri: "/lists/mine/items", method: .get, headers: ana).status == .ok)
            #expect(try await client.execute(uri: "/lists/mine/nope", method: .get, headers: ana).status == .notFound)
            // The list's description, which tells a client its views and scope, is theirs too
            // (it was `401` with read tokens, so a JWT client could not learn what to ask for).
            let described = try await client.execute(uri: "/lists/mine", method: .get, headers: ana)
            #expect(described.status == .ok)
            #expect(String(buffer: described.body).contains("\"scope\""))
        }
    }

    /// With read tokens, a JWT is verified on every path: one that does not verify is
    /// refused in the verifier's words (expired, a bad signature) wherever it is sent, and
    /// one that does, on a path of no scoped list, as a JWT that does not read there; the
    /// answers, and what they cost, are the same whether the path names a scoped list, one
    /// without a scope or none (review 105 #2, #3: the reason was dropped, and only a scoped
    /// path verified). A read token sent to write is told it reads (#7).
    @Test func aJWTIsRefusedInItsOwnWordsOnEveryPath() async throws {
        let fixture = try ScopedListTests.Fixture()
        try await fixture.run(readTokens: ["reader"]) { client in
            let expired = try await ClaimsTestKeys.hs256(["sub": .string("ana"), "exp": .integer(1_000_000)])
            var forged = try await ScopedListTests.headers("ana")
            forged[.authorization] = (forged[.authorization] ?? "") + "x"
            for (headers, says) in [
                ([HTTPField.Name.authorization: "Bearer \(expired)"] as HTTPFields, "expired"),
                (forged, "signature"),
            ] {
                var details: Set<String> = []
                for path in ["/lists/mine/items", "/lists/notes/items", "/lists/nope/items", "/nope"] {
                    let answer = try await client.execute(uri: path, method: .get, headers: headers)
                    #expect(answer.status == .unauthorized, "\(path)")
                    details.insert(try HTTPTestSupport.json(answer)["detail"] as? String ?? "")
                }
                #expect(details.count == 1 && details.first?.contains(says) == true, "\(details)")
            }
            let ana = try await ScopedListTests.headers("ana")
            #expect(try await client.execute(uri: "/lists/mine/items", method: .get, headers: ana).status == .ok)
            var details: Set<String> = []
            for path in ["/lists/notes/items", "/lists/nope/items", "/lists"] {
                let answer = try await client.execute(uri: path, method: .get, headers: ana)
                #expect(answer.status == .unauthorized, "\(path)")
                details.insert(try HTTPTestSupport.json(answer)["detail"] as? String ?? "")
            }
            #expect(details == ["A JWT reads only the lists scoped to each caller; this request needs a read token."])
            let written = try await client.execute(
                uri: "/lists/notes/items",
                method: .post,
                headers: [.authorization: "Bearer reader", .contentType: "application/json"],
                body: ByteBuffer(string: #"{"id": "n1", "data": {"title": "n"}}"#)
            )
            #expect(written.status == .unauthorized)
            #expect(
                try HTTPTestSupport.json(written)["detail"] as? String
                    == "This token reads; writes need one of the server's write tokens."
            )
            let page = try await client.execute(
                uri: "/lists/notes/items",
                method: .get,
                headers: [.authorization: "Bearer reader"]
            )
            #expect(try ScopedListTests.ids(page) == [], "a refused write stored an item")
        }
    }
}
