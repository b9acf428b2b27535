import DataMediatorClient
import DataMediatorTesting
import Foundation
import Testing

/// The section info and `indexForItem` of the contract through a session: what
/// `/sections` and `/items/{id}` answer for its view, equal to a full walk's.
@Suite struct LookupSessionTests {
    @Test func sectionInfoAndLocateAnswerAsAFullWalkDoes() async throws {
        let server = try await Live.demo(300)
        defer { server.removeData() }
        let session = try Live.session(on: server, limit: 20)
        let walk = try await Live.walk(server)
        let info = try await session.sectionInfo()
        #expect(info.total == walk.itemCount && info.total == 300)
        #expect(info.sections.map(\.id) == walk.sections.map(\.id))
        #expect(info.sections.map(\.title) == walk.sections.map(\.title))
        #expect(info.sections.map(\.count) == walk.sections.map(\.items.count))

        let id = walk.items[137].id
        let location = try await session.locate(id)
        #expect(location.item.id == id && location.position == 137)
        #expect(location.indexPath == walk.path(of: id))
        #expect(location.sectionID == walk.sections[location.indexPath.section].id)
        #expect(location.sectionTitle == walk.sections[location.indexPath.section].title)
        // Its cursor opens the list at the item.
        try await session.open(cursor: location.cursor)
        #expect(await session.snapshot.items.first?.id == id)

        do {
            _ = try await session.locate("no such item/é")
            Issue.record("an unknown id was located")
        } catch let error as ListClientError {
            #expect(error.status == 404, "\(error)")
        }
        #expect(await server.stop() == 0)
    }
}
