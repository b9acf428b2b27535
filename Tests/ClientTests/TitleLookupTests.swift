import DataMediatorClient
import Foundation
import Synchronization
import Testing

/// A server whose list holds section `a` (item `a1`, version 3) and which answers every
/// title lookup (`/items/{id}`, `/sections`) with `status`; counts them.
final class BusyLookupTransport: StreamsNothing {
    let status: Int
    let lookups = Mutex(0)

    init(status: Int) {
        self.status = status
    }

    func get(path: String, query: [(String, String)], headers: [String: String]) async throws -> TransportAnswer {
        guard path.hasSuffix("/items") else {
            lookups.withLock { $0 += 1 }
            let problem = #"{"type": "/problems/too-many-requests", "title": "Too many requests"}"#
            return TransportAnswer(status: status, body: Array(problem.utf8), headers: ["Retry-After": "60"])
        }
        let page =
            #"{"list":"l","view":"v","version":"3","sections":[{"id":"a","kind":"items","title":"A","continues":false,"#
            + #""items":[{"id":"a1","type":"row","rev":"1","data":{}}]}],"next":null,"prev":null}"#
        return TransportAnswer(status: 200, body: Array(page.utf8))
    }
}

/// Section titles a change needs are looked up, but not again on every publish while the
/// server refuses them (review 83 F3: each event asked `/items/{id}` and `/sections` again,
/// keeping a busy server's cost routes over the client's rate by the client itself).
@Suite struct TitleLookupTests {
    static func insert(_ id: String, version: Int64, in section: String, after: String?) -> ListChange {
        ListChange(
            op: .insert,
            version: version,
            item: ListItem(id: id, type: "row", rev: "1", data: .object([:])),
            section: section,
            sectionAfter: "a",
            after: after
        )
    }

    @Test(arguments: [429, 503])
    func aRefusedLookupIsNotAskedAgainOnEachChange(status: Int) async throws {
        let transport = BusyLookupTransport(status: status)
        let session = ListSession(configuration: ListSessionConfiguration(list: "l"), transport: transport)
        try await session.loadFirstPage()
        try await session.apply([Self.insert("b1", version: 4, in: "b", after: nil)])
        try await session.apply([Self.insert("b2", version: 5, in: "b", after: "b1")])
        try await session.apply([Self.insert("b3", version: 6, in: "b", after: "b2")])
        let snapshot = await session.snapshot
        #expect(snapshot.sections.map(\.id) == ["a", "b"] && snapshot.itemCount == 4, "the changes are applied")
        #expect(snapshot.sections.last?.title == nil)
        #expect(transport.lookups.withLock { $0 } == 1)
    }
}
