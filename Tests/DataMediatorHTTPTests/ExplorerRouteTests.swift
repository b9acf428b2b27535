import DataMediator
import DataMediatorHTTP
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// `GET /` answers a browser with the explorer page and anything else with the JSON index;
/// the page's assets are served from the binary.
@Suite struct ExplorerRouteTests {
    static let browserAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,*/*;q=0.8"
    static let contentSecurityPolicy = HTTPField.Name("Content-Security-Policy") ?? .contentType

    @Test func aBrowserGetsTheExplorerPageWithAPolicyThatAllowsNoInlineScript() async throws {
        try await HTTPTestSupport.withClient { client in
            let response = try await client.execute(uri: "/", method: .get, headers: [.accept: Self.browserAccept])
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "text/html; charset=utf-8")
            #expect(response.headers[.vary] == "Accept, Accept-Encoding")
            let policy = try #require(response.headers[Self.contentSecurityPolicy])
            #expect(policy.contains("default-src 'self'"))
            #expect(!policy.contains("unsafe-inline"))
            #expect(response.headers[HTTPField.Name("Referrer-Policy")!] == "no-referrer")
            let html = String(buffer: response.body)
            #expect(html.contains("<script type=\"module\" src=\"/explorer/explorer.js\""))
            #expect(html.contains("/explorer/explorer.css"))
            // No inline script, and nothing loaded from another origin.
            #expect(!html.contains("<script>"))
            #expect(!html.contains("http://") && !html.contains("https://"))
        }
    }

    /// `text/*` covers `text/html` where the page is not named itself (RFC 9110 12.5.1: the
    /// most specific range decides).
    @Test(arguments: ["text/*", "text/*;q=0.9, */*;q=0.5", "TEXT/HTML", "application/json;q=0.2, text/*;q=0.3"])
    func anAcceptThatCoversHTMLBeforeJSONGetsThePage(accept: String) async throws {
        try await HTTPTestSupport.withClient { client in
            let response = try await client.execute(uri: "/", method: .get, headers: [.accept: accept])
            #expect(response.headers[.contentType] == "text/html; charset=utf-8")
        }
    }

    @Test(arguments: [
        nil, "*/*", "application/json", "text/html;q=0.5, application/json", "text/plain", "text/html;q=0, text/*",
        "text/*, application/json",
    ])
    func anythingElseGetsTheJSONIndexOfRoutesAndLists(accept: String?) async throws {
        try await HTTPTestSupport.withClient { client in
            let headers: HTTPFields = accept.map { [.accept: $0] } ?? [:]
            let response = try await client.execute(uri: "/", method: .get, headers: headers)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/json")
            #expect(response.headers[.eTag] != nil)
            let body = try HTTPTestSupport.json(response)
            let routes = try #require(body["routes"] as? [[String: Any]])
            let paths = routes.compactMap { $0["path"] as? String }
            for path in ["/", "/lists", "/lists/{list}", "/lists/{list}/items", "/lists/{list}/events", "/health"] {
                #expect(paths.contains(path), "\(path)")
            }
            let lists = try #require(body["lists"] as? [[String: Any]])
            #expect(lists.compactMap { $0["name"] as? String } == ["sample", "other"])
            #expect(lists.first?["href"] as? String == "/lists/sample")
            #expect(lists.first?["title"] != nil)
        }
    }

    @Test func theIndexNamesTheListsOnlyToACallerWhoMayReadThem() async throws {
        let router = buildRouter(
            registry: HTTPTestSupport.registry(),
            configuration: HTTPServerConfiguration(readTokens: ["reader"])
        )
        try await Application(router: router).test(.router) { client in
            let open = try await client.execute(uri: "/", method: .get)
            #expect(open.status == .ok)
            #expect((try HTTPTestSupport.json(open)["lists"] as? [Any])?.isEmpty == true)
            let page = try await client.execute(uri: "/", method: .get, headers: [.accept: Self.browserAccept])
            #expect(page.status == .ok)
            let reader = try await client.execute(uri: "/", method: .get, headers: [.authorization: "Bearer reader"])
            #expect((try HTTPTestSupport.json(reader)["lists"] as? [Any])?.count == 2)
            // The index differs by token, and says so to caches.
            for answer in [open, reader] { #expect(answer.headers[.vary]?.contains("Authorization") == true) }
        }
    }

    @Test(arguments: [
        ("/explorer/explorer.js", "text/javascript; charset=utf-8"),
        ("/explorer/live.js", "text/javascript; charset=utf-8"),
        ("/explorer/dom.js", "text/javascript; charset=utf-8"),
        ("/explorer/pages.js", "text/javascript; charset=utf-8"),
        ("/explorer/stream.js", "text/javascript; charset=utf-8"),
        ("/explorer/opening.js", "text/javascript; charset=utf-8"),
        ("/explorer/explorer.css", "text/css; charset=utf-8"),
    ])
    func theAssetsAreServedWithTheirTypesAndRevalidate(path: String, type: String) async throws {
        try await HTTPTestSupport.withClient { client in
            let response = try await client.execute(uri: path, method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == type)
            #expect(response.headers[.cacheControl] == "no-cache")
            #expect(response.body.readableBytes > 100)
            let tag = try #require(response.headers[.eTag])
            let again = try await client.execute(uri: path, method: .get, headers: [.ifNoneMatch: tag])
            #expect(again.status == .notModified)
            // If-Match holds a read of the file to the tag it names.
            #expect(try await client.execute(uri: path, method: .get, headers: [.ifMatch: tag]).status == .ok)
            let stale = try await client.execute(uri: path, method: .get, headers: [.ifMatch: "\"x\""])
            #expect(stale.status == .preconditionFailed)
            let head = try await client.execute(uri: path, method: .head)
            #expect(head.status == .ok)
            #expect(head.body.readableBytes == 0)
        }
    }

    @Test(arguments: [
        "/", "/explorer/explorer.js", "/explorer/live.js", "/explorer/dom.js", "/explorer/pages.js",
        "/explorer/stream.js", "/explorer/opening.js",
    ])
    func otherMethodsAreNotAllowed(path: String) async throws {
        try await HTTPTestSupport.withClient { client in
            let post = try await client.execute(uri: path, method: .post)
            try ProblemTests.expectProblem(post, status: 405, type: "method-not-allowed")
            #expect(post.headers[.allow] == "GET, HEAD, OPTIONS")
            let options = try await client.execute(uri: path, method: .options)
            #expect(options.status == .noContent)
        }
    }

    @Test func anUnknownAssetIsNotFound() async throws {
        try await HTTPTestSupport.withClient { client in
            let response = try await client.execute(uri: "/explorer/nope.js", method: .get)
            try ProblemTests.expectProblem(response, status: 404, type: "not-found")
        }
    }
}
