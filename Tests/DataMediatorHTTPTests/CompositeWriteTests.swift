import DataMediator
import DataMediatorTesting
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import DataMediatorHTTP

/// Composites are read-only (API.md): every write method answers `405 method-not-allowed`
/// with `Allow` naming the read methods, even with a write token and over a writable
/// child, and nothing is stored.
@Suite struct CompositeWriteTests {
    @Test func everyWriteToACompositeIs405AndStoresNothing() async throws {
        let fixture = try WriteRouteTests.Fixture()
        let notes = try fixture.registry.adapter(named: "notes")
        _ = try await notes.create(body: .object(["id": .string("a"), "data": .object(["title": .string("a")])]))
        let composite = try fixture.screen()
        let router = buildRouter(
            registry: ListRegistry([notes, composite]),
            configuration: HTTPServerConfiguration(writeTokens: [WriteRouteTests.token])
        )
        let before = try await fixture.state()
        try await Application(router: router).test(.router) { client in
            let headers: HTTPFields = [
                .authorization: "Bearer \(WriteRouteTests.token)", .contentType: "application/json",
            ]
            let writes: [(HTTPRequest.Method, String)] = [
                (.post, "/lists/screen/items"), (.put, "/lists/screen/items/n/a"), (.put, "/lists/screen/items/n/new"),
                (.patch, "/lists/screen/items/n/a"), (.delete, "/lists/screen/items/n/a"),
            ]
            for (method, uri) in writes {
                let answer = try await client.execute(
                    uri: uri,
                    method: method,
                    headers: headers,
                    body: ByteBuffer(string: #"{"id": "b", "data": {"title": "b"}}"#)
                )
                try ProblemTests.expectProblem(answer, status: 405, type: "method-not-allowed")
                #expect(answer.headers[.allow] == "GET, HEAD, OPTIONS", "\(method) \(uri)")
            }
        }
        let after = try await fixture.state()
        #expect(after.count == before.count && after.version == before.version)
    }
}

extension WriteRouteTests.Fixture {
    /// A composite `screen` of one child `n`, the notes list's default view.
    func screen() throws -> ListAdapter {
        let notes = try registry.adapter(named: "notes")
        return ListAdapter.composite(
            name: "screen",
            title: "Screen",
            children: [CompositeChild(name: "n", content: .list(notes, view: try notes.definition.view(named: nil)))],
            signer: CursorSigner(secret: SampleList.secret),
            notifier: notes.notifier
        )
    }
}
