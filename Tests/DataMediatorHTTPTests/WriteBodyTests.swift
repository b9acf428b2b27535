import DataMediator
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import DataMediatorHTTP

/// What a write body is read as: JSON in UTF-8, and numbers of `number` fields answered as
/// pages show them.
@Suite struct WriteBodyTests {
    @Test func aBodyLabelledUTF8IsTaken() async throws {
        let fixture = try WriteRouteTests.Fixture()
        try await fixture.run { client in
            for (id, type) in [("u1", "application/json; charset=utf-8"), ("u2", #"application/json;Charset="UTF-8""#)]
            {
                let response = try await client.execute(
                    uri: "/lists/notes/items",
                    method: .post,
                    headers: WriteRouteTests.headers([.contentType: type]),
                    body: WriteRouteTests.body(#"{"id": "\#(id)", "data": {"title": "é"}}"#)
                )
                #expect(response.status == .created, "\(type)")
            }
        }
    }

    /// Text Foundation's decoder takes but RFC 8259 does not (a trailing comma, a leading
    /// zero, `1.`) is `400`, and nothing is stored: it was stored as the decoder read it.
    @Test func aBodyThatIsNotStrictJSONIsRefused() async throws {
        let fixture = try WriteRouteTests.Fixture()
        try await fixture.run { client in
            let before = String(buffer: try await client.execute(uri: "/lists/notes/items", method: .get).body)
            for (body, what) in [
                (#"{"id": "t1", "data": {"title": "w",}}"#, "a comma before '}'"),
                (#"{"id": "t2", "data": {"title": "w", "weight": 01}}"#, "leading zero"),
                (#"{"id": "t3", "data": {"title": "w", "weight": 1.}}"#, "decimal point"),
            ] {
                let answer = try await client.execute(
                    uri: "/lists/notes/items",
                    method: .post,
                    headers: WriteRouteTests.headers(),
                    body: WriteRouteTests.body(body)
                )
                let text = String(buffer: answer.body)
                #expect(answer.status == .badRequest && text.contains("not valid JSON (RFC 8259)"), "\(body): \(text)")
                #expect(text.contains(what), "\(text)")
            }
            let after = String(buffer: try await client.execute(uri: "/lists/notes/items", method: .get).body)
            #expect(after == before)
        }
    }

    /// An `Idempotency-Key` too long to be one is refused without being repeated whole (a
    /// 10 KB key made a 10 KB answer).
    @Test func aKeyTooLongIsRefusedWithoutEchoingIt() async throws {
        let fixture = try WriteRouteTests.Fixture()
        try await fixture.run { client in
            let key = String(repeating: "k", count: 10_000)
            let answer = try await client.execute(
                uri: "/lists/notes/items",
                method: .post,
                headers: WriteRouteTests.headers([IdempotencyCallerTests.key: key]),
                body: WriteRouteTests.body(#"{"data": {"title": "w"}}"#)
            )
            let text = String(buffer: answer.body)
            #expect(answer.status == .badRequest && text.contains("got 10000 bytes"), "\(text)")
            #expect(text.utf8.count < 1_000)
        }
    }

    /// A whole number for a `number` field is answered as a page shows it (`7.0`), by every
    /// write: SQLite hands back `7` for the REAL it stored.
    @Test func aWholeNumberOfANumberFieldIsAnsweredAsAPageShowsIt() async throws {
        let fixture = try WriteRouteTests.Fixture()
        try await fixture.run { client in
            for (method, uri, body) in [
                (HTTPRequest.Method.post, "/lists/notes/items", #"{"id": "w1", "data": {"title": "w", "weight": 7}}"#),
                (.put, "/lists/notes/items/w2", #"{"data": {"title": "w", "weight": 7}}"#),
                (.patch, "/lists/notes/items/w1", #"{"data": {"weight": 7}}"#),
            ] {
                let answer = try await client.execute(
                    uri: uri,
                    method: method,
                    headers: WriteRouteTests.headers(),
                    body: WriteRouteTests.body(body)
                )
                let text = String(buffer: answer.body)
                #expect(text.contains(#""weight":7.0"#), "\(method): \(text)")
            }
            let page = String(buffer: try await client.execute(uri: "/lists/notes/items", method: .get).body)
            #expect(page.components(separatedBy: #""weight":7.0"#).count == 3, "\(page)")
        }
    }

    /// A number out of a 64-bit float's range is JSON (RFC 8259 sets no bound), so the
    /// write is refused as the field's bad value (422 naming it), and nothing is stored.
    @Test func aNumberOutOfRangeIsAFieldsBadValue() async throws {
        let fixture = try WriteRouteTests.Fixture()
        try await fixture.run { client in
            let before = String(buffer: try await client.execute(uri: "/lists/notes/items", method: .get).body)
            for (method, uri, body, field) in [
                (
                    HTTPRequest.Method.post, "/lists/notes/items", #"{"data": {"title": "w", "weight": 1e400}}"#,
                    "weight"
                ),
                (.put, "/lists/notes/items/w2", #"{"data": {"title": "w", "weight": -2E+999}}"#, "weight"),
                (.patch, "/lists/notes/items/n1", #"{"data": {"weight": 1e309}}"#, "weight"),
                (.post, "/lists/notes/items", #"{"id": 1e400, "data": {"title": "w"}}"#, "id"),
                // Too near 0 for a double: the decoder read it as the whole number 0.
                (.patch, "/lists/notes/items/n1", #"{"data": {"weight": 1e-400}}"#, "weight"),
                (.post, "/lists/notes/items", #"{"id": -1E-999, "data": {"title": "w"}}"#, "id"),
            ] {
                let answer = try await client.execute(
                    uri: uri,
                    method: method,
                    headers: WriteRouteTests.headers(),
                    body: WriteRouteTests.body(body)
                )
                #expect(answer.status == .unprocessableContent, "\(method) \(body)")
                let problem = try HTTPTestSupport.json(answer)
                #expect(problem["type"] as? String == "/problems/invalid-item", "\(problem)")
                let errors = problem["errors"] as? [[String: Any]]
                #expect(errors?.first?["field"] as? String == field, "\(problem)")
            }
            // A string that is no Unicode text is not JSON a program can read: 400, not a
            // field's value out of range.
            for body in [
                Array(#"{"data": {"title": ""#.utf8) + [0xFF] + Array(#""}}"#.utf8),
                Array(#"{"data": {"title": "\ud800"}}"#.utf8), Array(#"{"data": {"title": "a\udc00b"}}"#.utf8),
                Array(#"{"data": {"title": "\ud800\u0041"}}"#.utf8),
            ] {
                let answer = try await client.execute(
                    uri: "/lists/notes/items",
                    method: .post,
                    headers: WriteRouteTests.headers(),
                    body: ByteBuffer(bytes: body)
                )
                #expect(answer.status == .badRequest, "\(String(decoding: body, as: UTF8.self))")
                #expect(try HTTPTestSupport.json(answer)["type"] as? String == "/problems/bad-request")
            }
            #expect(String(buffer: try await client.execute(uri: "/lists/notes/items", method: .get).body) == before)
            // A pair, and an escaped backslash before a `u`, are text.
            for title in [#"\ud83d\ude00"#, #"\\ud800"#] {
                let answer = try await client.execute(
                    uri: "/lists/notes/items",
                    method: .post,
                    headers: WriteRouteTests.headers(),
                    body: WriteRouteTests.body(#"{"data": {"title": "\#(title)"}}"#)
                )
                #expect(answer.status == .created, "\(title)")
            }
        }
    }

    /// RFC 5789: PATCH applies JSON merge patches; a JSON Patch (RFC 6902) is refused with
    /// the formats it takes (`Accept-Patch`), which `OPTIONS` of an item names too.
    @Test func aJSONPatchIsRefusedNamingTheFormatsPatchTakes() async throws {
        let fixture = try WriteRouteTests.Fixture()
        try await fixture.run { client in
            let created = try await client.execute(
                uri: "/lists/notes/items",
                method: .post,
                headers: WriteRouteTests.headers(),
                body: WriteRouteTests.body(#"{"id": "p1", "data": {"title": "before"}}"#)
            )
            #expect(created.status == .created)
            let accept = HTTPField.Name.known("Accept-Patch")
            let refused = try await client.execute(
                uri: "/lists/notes/items/p1",
                method: .patch,
                headers: WriteRouteTests.headers([.contentType: "application/json-patch+json"]),
                body: WriteRouteTests.body(#"{"data": {"title": "after"}}"#)
            )
            #expect(refused.status == .unsupportedMediaType)
            #expect(refused.headers[accept] == "application/merge-patch+json, application/json")
            let merged = try await client.execute(
                uri: "/lists/notes/items/p1",
                method: .patch,
                headers: WriteRouteTests.headers([.contentType: "application/merge-patch+json"]),
                body: WriteRouteTests.body(#"{"data": {"title": "after"}}"#)
            )
            #expect(merged.status == .ok)
            let options = try await client.execute(uri: "/lists/notes/items/p1", method: .options)
            #expect(options.headers[accept] == "application/merge-patch+json, application/json")
            let collection = try await client.execute(uri: "/lists/notes/items", method: .options)
            #expect(collection.headers[accept] == nil, "the collection takes no PATCH")
        }
    }

    /// A `PUT` with `Content-Range` (a part of a body, RFC 9110 14.5) is `400` and the item
    /// is left as it was: it replaced the item with the part.
    @Test func aPutWithContentRangeIsRefused() async throws {
        let fixture = try WriteRouteTests.Fixture()
        try await fixture.run { client in
            let created = try await client.execute(
                uri: "/lists/notes/items/r1",
                method: .put,
                headers: WriteRouteTests.headers(),
                body: WriteRouteTests.body(#"{"data": {"title": "whole", "weight": 2}}"#)
            )
            #expect(created.status == .created)
            let answer = try await client.execute(
                uri: "/lists/notes/items/r1",
                method: .put,
                headers: WriteRouteTests.headers([.contentRange: "bytes 0-19/40"]),
                body: WriteRouteTests.body(#"{"data": {"title": "part"}}"#)
            )
            let text = String(buffer: answer.body)
            #expect(answer.status == .badRequest && text.contains("Content-Range"), "\(text)")
            #expect(answer.headers[.contentType] == "application/problem+json")
            let item = String(buffer: try await client.execute(uri: "/lists/notes/items/r1", method: .get).body)
            #expect(item.contains("whole") && !item.contains("part"), "\(item)")
        }
    }
}
