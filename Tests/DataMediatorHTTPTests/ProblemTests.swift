import DataMediator
import DataMediatorTesting
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// Every bad request answers a problem+json with the right status and a stable type.
@Suite struct ProblemTests {
    static let cases: [(uri: String, status: Int, type: String)] = [
        ("/lists/nope", 404, "unknown-list"),
        ("/lists/nope/items", 404, "unknown-list"),
        ("/lists/nope/sections", 404, "unknown-list"),
        ("/lists/sample/items?view=nope", 404, "unknown-view"),
        ("/lists/sample/items?view=", 404, "unknown-view"),
        ("/lists/sample/sections?view=nope", 404, "unknown-view"),
        ("/lists/sample/items/nope", 404, "unknown-item"),
        ("/lists/sample/items/item-00?view=positive", 404, "unknown-item"),
        ("/lists/sample/items?limit=", 400, "bad-limit"),
        ("/lists/sample/items?limit=0", 400, "bad-limit"),
        ("/lists/sample/items?limit=-5", 400, "bad-limit"),
        ("/lists/sample/items?limit=abc", 400, "bad-limit"),
        ("/lists/sample/items?limit=2.5", 400, "bad-limit"),
        ("/lists/sample/items?cursor=", 400, "bad-cursor"),
        ("/lists/sample/items?cursor=garbage", 400, "bad-cursor"),
        ("/lists/sample/items?cursor=eyJsIjoic2FtcGxlIn0.AAAA", 400, "bad-cursor"),
        // A repeated parameter is refused as a bad value of that parameter is.
        ("/lists/sample/items?limit=1&limit=2", 400, "bad-limit"),
        ("/lists/sample/items?view=flat&view=flat", 400, "bad-request"),
        ("/lists/sample/items?cursor=a&x=1&cursor=b&cursor=c", 400, "bad-cursor"),
        ("/lists/sample/items?around=item-01&around=item-02", 400, "bad-parameter"),
        ("/lists/sample/changes?since=0&limit=5&limit=5", 400, "bad-limit"),
        ("/lists/sample/sections?view=flat&view=by_day", 400, "bad-request"),
        ("/lists/sample/changes?since=1&since=2", 400, "bad-request"),
        // Names and values are percent-decoded, and an invalid escape or UTF-8 is refused
        // (Hummingbird's own reading passed `%ZZ` on as written: an unknown view).
        ("/lists/sample/items?view=%ZZ", 400, "bad-request"),
        ("/lists/sample/items?view=%C3", 400, "bad-request"),
        ("/lists/sample/items?vi%ZZew=flat", 400, "bad-request"),
        ("/lists/sample/items?vi%65w=flat&vi%65w=flat", 400, "bad-request"),
        ("/nowhere", 404, "not-found"),
        // `/lists` and a list's description take no parameters: any is refused, as the
        // other list routes refuse those they do not take.
        ("/lists?foo=1", 400, "unknown-parameter"),
        ("/lists/sample?view=nope", 400, "unknown-parameter"),
        ("/lists/nope?view=x", 404, "unknown-list"),
    ]

    @Test(arguments: cases)
    func badRequestsAnswerProblems(uri: String, status: Int, type: String) async throws {
        try await HTTPTestSupport.withClient { client in
            let response = try await client.execute(uri: uri, method: .get)
            try Self.expectProblem(response, status: status, type: type)
        }
    }

    @Test func aRepeatedParameterIsNamedWithItsCountAndUnknownOnesAreRefused() async throws {
        try await HTTPTestSupport.withClient { client in
            let repeated = try await client.execute(
                uri: "/lists/sample/items?cursor=a&_=1&cursor=b&cursor=c",
                method: .get
            )
            let detail = try HTTPTestSupport.json(repeated)["detail"] as? String
            #expect(detail == "'cursor' is given 3 times; give it at most once.")
            // A parameter no list route takes, or one another route takes, is refused,
            // naming those the route takes.
            for uri in ["/lists/sample/items?other=x", "/lists/sample/items?since=1", "/lists/sample/sections?limit=2"]
            {
                let refused = try await client.execute(uri: uri, method: .get)
                try Self.expectProblem(refused, status: 400, type: "unknown-parameter")
                let detail = try HTTPTestSupport.json(refused)["detail"] as? String ?? ""
                #expect(detail.contains("'view'"), "\(detail)")
            }
            // Names that begin with `_` (cache busters) are ignored, even when repeated or
            // when their value is not valid percent-encoded UTF-8; values are percent-decoded.
            let page = try await client.execute(
                uri: "/lists/sample/items?_=1&_=2&_t=x&_b=%ff&view=by%5Fday&limit=%32",
                method: .get
            )
            #expect(page.status == .ok)
            let body = try HTTPTestSupport.json(page)
            #expect(body["view"] as? String == "by_day" && body["limit"] as? Int == 2)
        }
    }

    @Test func aCursorOfAnotherViewOrListIsACursorMismatch() async throws {
        try await HTTPTestSupport.withClient { client in
            let page = try await client.execute(uri: "/lists/sample/items?view=flat&limit=2", method: .get)
            let next = try #require(try Page.decode(Array(page.body.readableBytesView)).next)
            for uri in [
                "/lists/sample/items?view=by_day&cursor=\(next)", "/lists/other/items?view=flat&cursor=\(next)",
            ] {
                try Self.expectProblem(
                    try await client.execute(uri: uri, method: .get),
                    status: 400,
                    type: "cursor-mismatch"
                )
            }
        }
    }

    /// Backward and anchored cursors are signed and bound exactly as forward ones
    /// (API.md, "Both directions"): a page's `prev`, and the `prev` and `next` of a page
    /// read `around` an item, are refused changed or cut (`bad-cursor`) and with another
    /// view or list (`cursor-mismatch`), and serve their own.
    @Test func backwardAndAnchoredCursorsAreSignedAndBoundAsForwardOnes() async throws {
        try await HTTPTestSupport.withClient { client in
            func page(_ uri: String) async throws -> Page {
                let answer = try await client.execute(uri: uri, method: .get)
                #expect(answer.status == .ok, "\(uri)")
                return try Page.decode(Array(answer.body.readableBytesView))
            }
            let first = try await page("/lists/sample/items?view=flat&limit=3")
            let second = try await page("/lists/sample/items?view=flat&limit=3&cursor=\(try #require(first.next))")
            let around = try await page("/lists/sample/items?view=flat&limit=3&around=item-30")
            let cursors = [try #require(second.prev), try #require(around.prev), try #require(around.next)]
            for cursor in cursors {
                _ = try await page("/lists/sample/items?view=flat&cursor=\(cursor)")
                for uri in ["/lists/sample/items?view=by_day&cursor=", "/lists/other/items?view=flat&cursor="] {
                    let answer = try await client.execute(uri: uri + cursor, method: .get)
                    try Self.expectProblem(answer, status: 400, type: "cursor-mismatch")
                }
                var characters = Array(cursor)
                for index in [0, characters.count / 2, characters.count - 1] {
                    let original = characters[index]
                    characters[index] = original == "A" ? "B" : "A"
                    let changed = try await client.execute(
                        uri: "/lists/sample/items?view=flat&cursor=\(String(characters))",
                        method: .get
                    )
                    try Self.expectProblem(changed, status: 400, type: "bad-cursor")
                    characters[index] = original
                }
                let cut = try await client.execute(
                    uri: "/lists/sample/items?view=flat&cursor=\(cursor.dropLast(2))",
                    method: .get
                )
                try Self.expectProblem(cut, status: 400, type: "bad-cursor")
            }
        }
    }

    @Test("write methods answer 405 with Allow", arguments: [HTTPRequest.Method.post, .put, .patch, .delete])
    func writesAreNotAllowedYet(method: HTTPRequest.Method) async throws {
        try await HTTPTestSupport.withClient { client in
            for uri in ["/lists/sample/items", "/lists/sample/items/item-01", "/lists", "/health"] {
                let response = try await client.execute(uri: uri, method: method)
                try Self.expectProblem(response, status: 405, type: "method-not-allowed")
                #expect(response.headers[.allow] == "GET, HEAD, OPTIONS")
            }
            // A method no route serves is 405 too, with the methods the path serves.
            for unknown in ["TRACE", "QUERY", "PROPFIND"] {
                for uri in ["/lists/sample/items", "/lists/sample/items/item-01", "/health"] {
                    let response = try await client.execute(uri: uri, method: try #require(HTTPRequest.Method(unknown)))
                    try Self.expectProblem(response, status: 405, type: "method-not-allowed")
                    #expect(response.headers[.allow] == "GET, HEAD, OPTIONS", "\(unknown) \(uri)")
                }
            }
            let options = try await client.execute(uri: "/lists/sample/items", method: .options)
            #expect(options.status == .noContent && options.headers[.allow] == "GET, HEAD, OPTIONS")
        }
    }

    @Test func anUnexpectedFailureRevealsNothing() async throws {
        try await HTTPTestSupport.withClient(provider: FailingProvider()) { client in
            let response = try await client.execute(uri: "/lists/sample/items", method: .get)
            try Self.expectProblem(response, status: 500, type: "internal-error")
            let text = String(buffer: response.body)
            #expect(!text.contains("SELECT") && !text.contains("/var/lib") && !text.contains("FailingProvider"))
        }
    }

    /// A request cut off (the grace period of a shutdown ran out, the client gone) is no
    /// server fault: `503` with `Retry-After`, not a `500`.
    @Test func aRequestCutOffIsNotAServerFault() async throws {
        try await HTTPTestSupport.withClient(provider: FailingProvider(failure: { CancellationError() })) { client in
            let response = try await client.execute(uri: "/lists/sample/items", method: .get)
            try Self.expectProblem(response, status: 503, type: "not-ready")
            #expect(response.headers[.retryAfter] == "1")
        }
    }

    static func expectProblem(_ response: TestResponse, status: Int, type: String) throws {
        #expect(Int(response.status.code) == status)
        #expect(response.headers[.contentType] == "application/problem+json")
        let body = try HTTPTestSupport.json(response)
        #expect(body["type"] as? String == "/problems/\(type)")
        #expect(body["status"] as? Int == status)
        #expect((body["title"] as? String)?.isEmpty == false)
        #expect((body["detail"] as? String)?.isEmpty == false)
        #expect((body["instance"] as? String)?.hasPrefix("/") == true)
    }
}

/// A provider that fails the way a broken store might, with internals in its message.
struct FailingProvider: DataProvider, SectionInfoProvider {
    struct Failure: Error, CustomStringConvertible {
        var description: String { "SQL error in SELECT secret FROM t at /var/lib/data.sqlite" }
    }

    /// What every call throws.
    var failure: @Sendable () -> any Error = { Failure() }

    func window(of view: View, from start: Position?, inclusive: Bool, limit: Int) async throws -> Window {
        throw failure()
    }
    func window(of view: View, before start: Position?, inclusive: Bool, limit: Int) async throws -> Window {
        throw failure()
    }
    func locate(id: String, in view: View) async throws -> Location? { throw failure() }
    func currentVersion() async throws -> Int64 { throw failure() }
    func sectionCounts(of view: View) async throws -> SectionCounts { throw failure() }
}
