import DataMediator
import DataMediatorHTTP
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@Suite struct CORSTests {
    static func name(_ text: String) -> HTTPField.Name { HTTPField.Name(text) ?? .origin }

    @Test func onlyConfiguredOriginsMayReadAndTheyCanSeeLinkAndETag() async throws {
        let router = buildRouter(
            registry: HTTPTestSupport.registry(),
            configuration: HTTPServerConfiguration(corsOrigins: ["https://app.example"])
        )
        try await Application(router: router).test(.router) { client in
            let allowed = try await client.execute(
                uri: "/lists/sample/items?limit=2",
                method: .get,
                headers: [.origin: "https://app.example"]
            )
            #expect(allowed.status == .ok)
            #expect(allowed.headers[Self.name("Access-Control-Allow-Origin")] == "https://app.example")
            let exposed = allowed.headers[Self.name("Access-Control-Expose-Headers")] ?? ""
            #expect(exposed.contains("Link") && exposed.contains("ETag"), "\(exposed)")
            // A refusal's reasons are readable too: why a token was refused, what is allowed.
            #expect(exposed.contains("WWW-Authenticate") && exposed.contains("Allow"), "\(exposed)")
            // Another origin gets the answer but no CORS headers: its browser cannot read it.
            let other = try await client.execute(
                uri: "/lists/sample/items?limit=2",
                method: .get,
                headers: [.origin: "https://evil.example"]
            )
            #expect(other.status == .ok && other.headers[Self.name("Access-Control-Allow-Origin")] == nil)
            // Every answer says it varies by Origin, so a cache keeps the two apart.
            let none = try await client.execute(uri: "/lists/sample/items?limit=2", method: .get)
            for answer in [other, none] { #expect(answer.headers[.vary]?.contains("Origin") == true) }
            // In one field with the others (nginx before 1.23 keys a cached answer by the last
            // Vary field alone: by Origin, it gave a gzip body to a client that takes none).
            let zipped = try await client.execute(
                uri: "/lists/sample/items?limit=2",
                method: .get,
                headers: [.origin: "https://app.example", .acceptEncoding: "gzip", .authorization: "Bearer t"]
            )
            #expect(zipped.headers[values: .vary] == ["Accept-Encoding, Origin, Authorization"], "\(zipped.headers)")
            let refused = try await client.execute(uri: "/lists/nope", method: .get)
            #expect(refused.status == .notFound && refused.headers[.vary]?.contains("Origin") == true)
            // A preflight for a write with a token.
            let preflight = try await client.execute(
                uri: "/lists/sample/items",
                method: .options,
                headers: [
                    .origin: "https://app.example", Self.name("Access-Control-Request-Method"): "POST",
                    Self.name("Access-Control-Request-Headers"): "authorization, content-type",
                ]
            )
            #expect(preflight.headers[Self.name("Access-Control-Allow-Origin")] == "https://app.example")
            #expect(preflight.headers[Self.name("Access-Control-Allow-Methods")]?.contains("POST") == true)
            // A browser's conditional write sends If-Match (and may send If-None-Match).
            let allowedHeaders = preflight.headers[Self.name("Access-Control-Allow-Headers")]?.lowercased() ?? ""
            for header in ["authorization", "content-type", "if-match", "if-none-match", "idempotency-key"] {
                #expect(allowedHeaders.contains(header), "\(header): \(allowedHeaders)")
            }
            // An OPTIONS from a listed origin that names no method to come is no preflight:
            // it answers the route's own `Allow`, readable by the origin.
            let options = try await client.execute(
                uri: "/lists/sample",
                method: .options,
                headers: [.origin: "https://app.example"]
            )
            #expect(options.status == .noContent && options.headers[.allow] == "GET, HEAD, OPTIONS")
            #expect(options.headers[Self.name("Access-Control-Allow-Origin")] == "https://app.example")
        }
    }

    @Test func withoutConfiguredOriginsNoAnswerCarriesCORSHeaders() async throws {
        try await HTTPTestSupport.withClient { client in
            let answer = try await client.execute(
                uri: "/lists/sample/items?limit=2",
                method: .get,
                headers: [.origin: "https://app.example"]
            )
            #expect(answer.headers[Self.name("Access-Control-Allow-Origin")] == nil)
        }
    }

    /// `Origin: null` (a file, a sandboxed frame) is no origin `*` takes, on any method: a
    /// plain OPTIONS echoed it while a GET and a preflight did not (review 105 #8). A JSON
    /// Patch's refusal names the patch types in `Accept-Patch`, which a script may read.
    @Test func theNullOriginIsTakenByNoneAndAcceptPatchIsExposed() async throws {
        let router = buildRouter(
            registry: HTTPTestSupport.registry(),
            configuration: HTTPServerConfiguration(corsOrigins: ["*"])
        )
        try await Application(router: router).test(.router) { client in
            let preflight: HTTPFields = [.origin: "null", Self.name("Access-Control-Request-Method"): "GET"]
            for (method, headers) in [
                (HTTPRequest.Method.options, [.origin: "null"] as HTTPFields), (.get, [.origin: "null"]),
                (.options, preflight),
            ] {
                let answer = try await client.execute(uri: "/lists/sample/items", method: method, headers: headers)
                #expect(answer.headers[Self.name("Access-Control-Allow-Origin")] == nil, "\(method) \(headers)")
                #expect(answer.headers[.vary]?.contains("Origin") == true, "\(method) \(headers)")
            }
            let listed = try await client.execute(
                uri: "/lists/sample/items",
                method: .options,
                headers: [.origin: "https://app.example"]
            )
            #expect(listed.headers[Self.name("Access-Control-Allow-Origin")] == "https://app.example")
            let exposed = listed.headers[Self.name("Access-Control-Expose-Headers")] ?? ""
            #expect(exposed.contains("Accept-Patch"), "\(exposed)")
        }
    }
}
