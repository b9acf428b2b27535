import DataMediator
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

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
}
