import DataMediator
import DataMediatorTesting
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// `GET /lists/{list}/items` and the other read routes over HTTP, in process.
@Suite struct PageRouteTests {
    @Test("a walk over HTTP follows every page rule", arguments: ["by_group", "by_day", "flat", "positive"])
    func walkOverHTTP(view: String) async throws {
        try await HTTPTestSupport.withClient { client in
            var check = WalkCheck()
            var uri = "/lists/sample/items?view=\(view)&limit=4"
            while true {
                let response = try await client.execute(uri: uri, method: .get)
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/json")
                let page = try Page.decode(Array(response.body.readableBytesView))
                check.add(page)
                let links = Self.links(response.headers[HTTPTestSupport.link])
                // The Link header names the page before, when there is one, by its `prev`.
                #expect(links["prev"].map { $0.hasSuffix("cursor=\(page.prev ?? "")") } ?? (page.prev == nil))
                guard let next = page.next else {
                    #expect(links["next"] == nil)
                    break
                }
                // It names the next page, and following it gives the same page as the cursor.
                let link = try #require(links["next"])
                #expect(link.hasSuffix("cursor=\(next)"))
                uri = link
            }
            let definition = try SampleList.definition.view(named: view)
            check.expectOrder(SampleList.expectedOrder(SampleList.items(), view: definition).map { $0["id"].idString })
            #expect(check.violations == [])
        }
    }

    /// The targets of a `Link` field by relation (`<uri>; rel="next", <uri>; rel="prev"`).
    static func links(_ field: String?) -> [String: String] {
        var links: [String: String] = [:]
        for value in (field ?? "").split(separator: ",") {
            let parts = value.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, parts[0].hasPrefix("<"), parts[0].hasSuffix(">"), parts[1].hasPrefix("rel=")
            else { continue }
            links[parts[1].dropFirst(4).trimmingCharacters(in: CharacterSet(charactersIn: "\""))] = String(
                parts[0].dropFirst().dropLast()
            )
        }
        return links
    }

    @Test("a walk back over HTTP through Link rel=prev gives the forward walk's items", arguments: ["by_day", "flat"])
    func walkBackOverHTTP(view: String) async throws {
        try await HTTPTestSupport.withClient { client in
            let definition = try SampleList.definition.view(named: view)
            let expected = SampleList.expectedOrder(SampleList.items(), view: definition).map { $0["id"].idString }
            // Open at the last item, then follow prev to the top, putting each page on top.
            let last = try #require(expected.last)
            var uri = "/lists/sample/items?view=\(view)&limit=4&around=\(PathSegment.encode(last))"
            var pages: [Page] = []
            while true {
                let response = try await client.execute(uri: uri, method: .get)
                #expect(response.status == .ok)
                let page = try Page.decode(Array(response.body.readableBytesView))
                pages.insert(page, at: 0)
                guard let prev = Self.links(response.headers[HTTPTestSupport.link])["prev"] else {
                    #expect(page.prev == nil)
                    break
                }
                #expect(prev.hasSuffix("cursor=\(page.prev ?? "-")"))
                uri = prev
            }
            #expect(pages.flatMap(\.items).map(\.id) == expected)
            #expect(pages.dropFirst().allSatisfy { $0.sections.first?.kind == .loading })
        }
    }

    @Test("around answers 400 with a cursor and 404 for an unknown id, as problems")
    func aroundErrors() async throws {
        try await HTTPTestSupport.withClient { client in
            let first = try await client.execute(uri: "/lists/sample/items?limit=2", method: .get)
            let next = try #require(try Page.decode(Array(first.body.readableBytesView)).next)
            for (uri, status) in [
                ("/lists/sample/items?around=item-01&cursor=\(next)", HTTPResponse.Status.badRequest),
                ("/lists/sample/items?around=", .badRequest), ("/lists/sample/items?around=nope", .notFound),
                ("/lists/sample/items?around=item-01&around=item-02", .badRequest),
            ] {
                let response = try await client.execute(uri: uri, method: .get)
                #expect(response.status == status, "\(uri)")
                #expect(response.headers[.contentType] == "application/problem+json", "\(uri)")
            }
        }
    }

    /// An answer to a request with a token is the caller's: caches shared between users
    /// must not keep it (a browser's own may, to revalidate); and no answer is sniffed.
    @Test func anAnswerToARequestWithATokenIsPrivate() async throws {
        try await HTTPTestSupport.withClient { client in
            let token: HTTPFields = [.authorization: "Bearer reader"]
            let page = try await client.execute(uri: "/lists/sample/items?limit=3", method: .get, headers: token)
            #expect(page.status == .ok && page.headers[.cacheControl] == "private, no-cache")
            #expect(page.headers[.vary]?.contains("Authorization") == true)
            #expect(page.headers[.xContentTypeOptions] == "nosniff")
            let tag = try #require(page.headers[.eTag])
            let again = try await client.execute(
                uri: "/lists/sample/items?limit=3",
                method: .get,
                headers: token + [.ifNoneMatch: tag]
            )
            #expect(again.status == .notModified && again.headers[.cacheControl] == "private, no-cache")
            #expect(again.headers[.vary]?.contains("Authorization") == true)
            let problem = try await client.execute(uri: "/lists/none/items", method: .get, headers: token)
            #expect(problem.headers[.cacheControl] == "no-store" && problem.headers[.xContentTypeOptions] == "nosniff")
            let anyone = try await client.execute(uri: "/lists/sample/items", method: .get)
            #expect(anyone.headers[.cacheControl] == "no-cache")
            #expect(anyone.headers[.vary]?.contains("Authorization") != true)
        }
    }

    /// Two `Authorization` fields are one request with two credentials: `400` saying so,
    /// not a `401` for a token that would be read as both joined.
    @Test func twoAuthorizationHeadersAreABadRequest() async throws {
        try await HTTPTestSupport.withClient { client in
            var twice = HTTPFields()
            twice.append(HTTPField(name: .authorization, value: "Bearer reader"))
            twice.append(HTTPField(name: .authorization, value: "Bearer reader"))
            let doubled = try await client.execute(uri: "/lists/sample/items", method: .get, headers: twice)
            #expect(doubled.status == .badRequest)
            #expect(doubled.headers[.contentType] == "application/problem+json")
            #expect(String(buffer: doubled.body).contains("more than one 'Authorization'"))
            let once = try await client.execute(
                uri: "/lists/sample/items",
                method: .get,
                headers: [.authorization: "Bearer reader"]
            )
            #expect(once.status == .ok)
        }
    }

    @Test func aPageHasAStrongETagAnd304sWhenItMatches() async throws {
        try await HTTPTestSupport.withClient { client in
            let first = try await client.execute(uri: "/lists/sample/items?limit=3", method: .get)
            let tag = try #require(first.headers[.eTag])
            #expect(tag.hasPrefix("\"") && tag.hasSuffix("\"") && !tag.hasPrefix("W/"))
            #expect(first.headers[.cacheControl] == "no-cache")
            for condition in [tag, "W/" + tag, "\"other\", " + tag, "*"] {
                let again = try await client.execute(
                    uri: "/lists/sample/items?limit=3",
                    method: .get,
                    headers: [.ifNoneMatch: condition]
                )
                #expect(again.status == .notModified, "If-None-Match: \(condition)")
                #expect(again.body.readableBytes == 0)
                #expect(again.headers[.eTag] == tag && again.headers[.cacheControl] == "no-cache")
            }
            let stale = try await client.execute(
                uri: "/lists/sample/items?limit=3",
                method: .get,
                headers: [.ifNoneMatch: "\"stale\""]
            )
            #expect(stale.status == .ok && stale.headers[.eTag] == tag)
            // A malformed field matches nothing, as on the routes without tags: `*` is alone
            // or not at all, a tag is quoted.
            for condition in ["*, " + tag, tag + ", *", tag + ", abc", String(tag.dropFirst().dropLast())] {
                for path in ["/lists/sample/items?limit=3", "/lists", "/openapi.yaml", "/health"] {
                    let malformed = try await client.execute(
                        uri: path,
                        method: .get,
                        headers: [.ifNoneMatch: condition]
                    )
                    #expect(malformed.status == .ok, "\(path) If-None-Match: \(condition)")
                }
            }
            let other = try await client.execute(
                uri: "/lists/sample/items?limit=4",
                method: .get,
                headers: [.ifNoneMatch: tag]
            )
            #expect(other.status == .ok && other.headers[.eTag] != tag)
            // If-Match holds a read to the answer it names (RFC 9110 13.1.1): strongly.
            for (condition, status) in [
                (tag, HTTPResponse.Status.ok), ("*", .ok), ("\"other\", " + tag, .ok),
                ("\"stale\"", .preconditionFailed),
                ("W/" + tag, .preconditionFailed), ("abc", .badRequest),
            ] {
                let read = try await client.execute(
                    uri: "/lists/sample/items?limit=3",
                    method: .get,
                    headers: [.ifMatch: condition]
                )
                #expect(read.status == status, "If-Match: \(condition)")
            }
        }
    }

    /// Routes whose answers carry no ETag hold If-Match too: `*` holds, a tag never does, and
    /// a field that is neither is a bad request (a stream is refused before it opens).
    @Test func aRouteWithoutETagsHoldsIfMatch() async throws {
        try await HTTPTestSupport.withClient { client in
            for path in ["/health", "/ready", "/lists/sample/events"] {
                let any = try await client.execute(uri: path, method: .head, headers: [.ifMatch: "*"])
                #expect(any.status == .ok, "\(path) If-Match: *")
                #expect(any.headers[.eTag] == nil, "\(path) has an ETag now: test it as the others")
                for (condition, status) in [
                    ("\"x\"", HTTPResponse.Status.preconditionFailed), ("x", .badRequest),
                ] {
                    let read = try await client.execute(uri: path, method: .get, headers: [.ifMatch: condition])
                    #expect(read.status == status, "\(path) If-Match: \(condition)")
                    #expect(read.headers[.contentType] == "application/problem+json")
                }
            }
            // If-None-Match: * matches any answer there is (RFC 9110 13.1.2).
            let health = try await client.execute(uri: "/health", method: .get, headers: [.ifNoneMatch: "*"])
            #expect(health.status == .notModified && health.body.readableBytes == 0)
            // With the caching fields its 200 has (RFC 9110 15.4.5): /health is not stored.
            #expect(health.headers[.cacheControl] == "no-store", "\(health.headers)")
            let problems = try await client.execute(uri: "/problems/bad-cursor", method: .get)
            let notModified = try await client.execute(
                uri: "/problems/bad-cursor",
                method: .get,
                headers: [.ifNoneMatch: "*"]
            )
            #expect(notModified.status == .notModified)
            #expect(notModified.headers[.cacheControl] == problems.headers[.cacheControl], "\(notModified.headers)")
            let missing = try await client.execute(uri: "/problems/nope", method: .get, headers: [.ifNoneMatch: "*"])
            #expect(missing.status == .notFound)
            let tagged = try await client.execute(uri: "/health", method: .get, headers: [.ifNoneMatch: "\"x\""])
            #expect(tagged.status == .ok)
            // Only an answer that would be 2xx is held to them (RFC 9110 13.2.1): what does
            // not exist stays 404 (it was 412, or 400 for a malformed field).
            for path in ["/problems/nope", "/lists/none/events"] {
                for condition in ["\"x\"", "x"] {
                    let read = try await client.execute(uri: path, method: .get, headers: [.ifMatch: condition])
                    #expect(read.status == .notFound, "\(path) If-Match: \(condition)")
                }
            }
            // A stream is never 304, its path spelt with a slash too.
            let stream = try await client.execute(
                uri: "/lists/sample/events/",
                method: .head,
                headers: [.ifNoneMatch: "*"]
            )
            #expect(stream.status != .notModified, "\(stream.status)")
        }
        try await HTTPTestSupport.withClient(ready: false) { client in
            let ready = try await client.execute(uri: "/ready", method: .get, headers: [.ifMatch: "\"x\""])
            #expect(ready.status == .serviceUnavailable && ready.headers[.retryAfter] != nil, "\(ready.status)")
        }
    }

    @Test func headAnswersHeadersWithoutABody() async throws {
        try await HTTPTestSupport.withClient { client in
            let head = try await client.execute(uri: "/lists/sample/items?limit=3", method: .head)
            let get = try await client.execute(uri: "/lists/sample/items?limit=3", method: .get)
            #expect(head.status == .ok && head.body.readableBytes == 0)
            #expect(head.headers[.eTag] == get.headers[.eTag])
        }
    }

    @Test func listsAndDescriptionsNameEveryViewAndCellType() async throws {
        try await HTTPTestSupport.withClient { client in
            let lists =
                try HTTPTestSupport.json(try await client.execute(uri: "/lists", method: .get))["lists"]
                as? [[String: Any]]
            #expect(lists?.map { $0["name"] as? String } == ["sample", "other"])
            #expect(lists?.first?["href"] as? String == "/lists/sample")
            let views = lists?.first?["views"] as? [[String: Any]]
            #expect(views?.map { $0["name"] as? String } == ["by_group", "by_day", "flat", "positive"])
            #expect(views?.map { $0["default"] as? Bool } == [true, false, false, false])

            let description = try HTTPTestSupport.json(try await client.execute(uri: "/lists/sample", method: .get))
            #expect((description["limit"] as? [String: Int]) == ["default": 5, "max": 10])
            let described = try #require(description["views"] as? [[String: Any]])
            let positive = try #require(described.first { $0["name"] as? String == "positive" })
            #expect(positive["cell_types"] as? [String] == ["big", "small", "other", "loading"])
            #expect((positive["sort"] as? [[String: String]])?.last == ["field": "id", "order": "desc"])
            #expect(positive["section"] is NSNull)
            let byDay = try #require(described.first { $0["name"] as? String == "by_day" })
            #expect(byDay["section"] as? [String: String] == ["field": "created", "by": "day"])
        }
    }

    @Test(
        "an item is found by its id, its slash encoded or not",
        arguments: [
            ("item%2F3", "item/3"), ("item/3", "item/3"), ("%C3%ADtem-7", "ítem-7"), ("item-05", "item-05"),
        ]
    )
    func itemByID(path: String, id: String) async throws {
        try await HTTPTestSupport.withClient { client in
            let response = try await client.execute(uri: "/lists/sample/items/\(path)?view=flat", method: .get)
            #expect(response.status == .ok)
            let body = try HTTPTestSupport.json(response)
            #expect((body["item"] as? [String: Any])?["id"] as? String == id)
            #expect(body["index_path"] is [String: Int])
            #expect(body["position"] is Int && body["cursor"] is String)
            // The cursor starts a page with the item.
            let cursor = try #require(body["cursor"] as? String)
            let page = try await client.execute(uri: "/lists/sample/items?view=flat&cursor=\(cursor)", method: .get)
            #expect(try Page.decode(Array(page.body.readableBytesView)).items.first?.id == id)
        }
    }

    @Test func sectionInfoCountsEveryItem() async throws {
        try await HTTPTestSupport.withClient { client in
            let body = try HTTPTestSupport.json(
                try await client.execute(uri: "/lists/sample/sections?view=by_group", method: .get)
            )
            let sections = try #require(body["sections"] as? [[String: Any]])
            #expect(sections.compactMap { $0["count"] as? Int }.reduce(0, +) == body["total"] as? Int)
            #expect(body["total"] as? Int == 57)
            #expect(sections.first?["title"] as? String == "Group alpha")
            #expect(body["version"] as? String == "7")
        }
    }

    @Test func operationsRoutesAnswer() async throws {
        try await HTTPTestSupport.withClient { client in
            #expect(try await client.execute(uri: "/health", method: .get).status == .ok)
            #expect(try await client.execute(uri: "/ready", method: .get).status == .ok)
            let spec = try await client.execute(uri: "/openapi.yaml", method: .get)
            #expect(spec.status == .ok && spec.headers[.contentType] == "application/yaml")
            #expect(String(buffer: spec.body).hasPrefix("openapi: 3.1"))
            let problem = try await client.execute(uri: "/problems/bad-cursor", method: .get)
            #expect(problem.status == .ok && String(buffer: problem.body).contains("Bad cursor"))
            // Tagged and revalidated, as the contract's answers are (review 101: a shared
            // cache stored it by heuristic and could not revalidate it).
            #expect(problem.headers[.cacheControl] == "no-cache")
            let tag = try #require(problem.headers[.eTag])
            let again = try await client.execute(
                uri: "/problems/bad-cursor",
                method: .get,
                headers: [.ifNoneMatch: tag]
            )
            #expect(again.status == .notModified && again.headers[.eTag] == tag)
            // If-Match holds a read of it to its tag (review 103: its own tag was `412`).
            for (condition, status) in [(tag, HTTPResponse.Status.ok), ("\"stale\"", .preconditionFailed)] {
                let read = try await client.execute(
                    uri: "/problems/bad-cursor",
                    method: .get,
                    headers: [.ifMatch: condition]
                )
                #expect(read.status == status, "If-Match: \(condition)")
            }
        }
        try await HTTPTestSupport.withClient(ready: false) { client in
            let response = try await client.execute(uri: "/ready", method: .get)
            #expect(response.status == .serviceUnavailable)
            #expect(response.headers[.contentType] == "application/problem+json")
        }
    }
}
