import DataMediatorTesting
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

@testable import DataMediator
@testable import DataMediatorHTTP

/// Each read of a list is made for its client (``ReadOrigin``), whose share of what the
/// store keeps for readers counts by it: two clients' reads carry two tags, one client's
/// reads one, whatever route they take.
@Suite struct ReadOriginTests {
    /// A provider that notes the client each read was made for, by route.
    final class Witness: ForwardingProvider {
        let inner: any DataProvider & SectionInfoProvider
        /// Each read's name and the client tags it saw.
        let seen = Mutex<[String: [String?]]>([:])

        init(_ inner: any DataProvider & SectionInfoProvider) { self.inner = inner }

        func window(of view: View, from start: Position?, inclusive: Bool, limit: Int) async throws -> Window {
            seen.withLock { $0["window", default: []].append(ReadOrigin.client) }
            return try await inner.window(of: view, from: start, inclusive: inclusive, limit: limit)
        }

        func sectionCounts(of view: View) async throws -> SectionCounts {
            seen.withLock { $0["sections", default: []].append(ReadOrigin.client) }
            return try await inner.sectionCounts(of: view)
        }

        func locate(id: String, in view: View) async throws -> Location? {
            seen.withLock { $0["locate", default: []].append(ReadOrigin.client) }
            return try await inner.locate(id: id, in: view)
        }
    }

    @Test func eachReadOfAListIsMadeForItsClient() async throws {
        let fixture = try EventReloadTests.Fixture()
        let written = try await fixture.notes.create(body: .object(["data": .object(["title": .string("first")])]))
        let witness = Witness(fixture.notes.provider)
        let adapter = fixture.notes(readingFrom: witness)
        let configuration = HTTPServerConfiguration(writeTokens: ["ana-writes", "bo-writes"])
        let router = buildRouter(registry: ListRegistry([adapter]), configuration: configuration)
        try await Application(router: router).test(.router) { client in
            for token in ["ana-writes", "bo-writes"] {
                let headers: HTTPFields = [.authorization: "Bearer \(token)"]
                for uri in ["/lists/notes/items", "/lists/notes/sections", "/lists/notes/items/\(written.cell.id)"] {
                    let response = try await client.execute(uri: uri, method: .get, headers: headers)
                    #expect(response.status == .ok, "\(uri)")
                }
            }
        }
        let seen = witness.seen.withLock { $0 }
        for route in ["window", "sections", "locate"] {
            let tags = seen[route] ?? []
            #expect(tags.count == 2 && tags.allSatisfy { $0 != nil }, "\(route): \(tags)")
            #expect(Set(tags).count == 2, "\(route): one tag per client")
        }
        #expect(seen["window"]?.first == seen["sections"]?.first, "one client, one tag on every route")
    }
}
