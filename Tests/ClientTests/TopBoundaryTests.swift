import DataMediatorClient
import DataMediatorTesting
import Foundation
import Testing

/// A session opened at an item reads the items above from its first item's place (`prev`).
/// When that item goes, an item a change put between its place and the first item held now
/// was in neither: the change names a neighbour the session does not hold, and the page
/// above ended before it. The page above is then read around the first item held.
@Suite struct TopBoundaryTests {
    /// How the session learns of the writes: before it reads above (`catchUp`); only with
    /// the page above (the changes since its version, which the page is merged with); or of
    /// the first item's going but not of the second's, so the page around the first held
    /// item is `404`. Read from the gone item's place either way, the page missed the item.
    enum Learning: CaseIterable, Sendable {
        case first, withThePage, notOfTheSecond
    }

    @Test(arguments: Learning.allCases)
    func anItemPutRightAfterAGoneFirstItemIsReadWithThePageAbove(_ learning: Learning) async throws {
        let server = try await Live.demo(200)
        defer { server.removeData() }
        let before = try await Live.walk(server)
        let session = try Live.session(on: server, limit: 5)
        try await session.open(around: before.items[100].id)
        let opened = await session.snapshot
        #expect(opened.hasMoreBefore)
        let (first, second) = (opened.items[0], opened.items[1])
        let (a, b) = (try Live.moment(of: first), try Live.moment(of: second))
        let between = Live.timestamp(
            Date(timeIntervalSince1970: (a.timeIntervalSince1970 + b.timeIntervalSince1970) / 2)
        )
        try #require(between != Live.timestamp(a) && between != Live.timestamp(b))
        _ = try await Live.send("DELETE", "/lists/transactions/items/\(first.id)", nil, on: server)
        let written = try await Live.send(
            "POST",
            "/lists/transactions/items",
            #"{"data": {"player": "gap", "points": 1, "reason": "top", "created_at": "\#(between)"}}"#,
            on: server
        )
        let gap = try #require(
            (try JSONSerialization.jsonObject(with: Data(written)) as? [String: Any])?["id"] as? String
        )
        if learning != .withThePage { try await session.catchUp() }
        if learning == .notOfTheSecond {
            _ = try await Live.send("DELETE", "/lists/transactions/items/\(second.id)", nil, on: server)
        }
        while try await session.loadEarlier() {}
        let held = await session.snapshot
        let fresh = try await Live.walk(server)
        #expect(held.item(id: gap) != nil, "the item put in the gap")
        #expect(held.items.map(\.id) == Array(fresh.items.map(\.id).prefix(held.itemCount)))
        #expect(await server.stop() == 0)
    }

    /// When the first item goes and a change then puts another held item at the very top of
    /// the view, the session cannot tell that place from one just above what it holds: the
    /// item is put first, and the page above read around it does not join what is held (it
    /// would leave out everything between, for good). The session reloads from where it
    /// stood instead, and paging both ways then holds the whole view. With pages of one
    /// item, the page around it shows nothing after it to compare, and is not taken either.
    @Test(arguments: [10, 1])
    func anItemMovedToTheTopAfterAGoneFirstItemLeavesNoHole(limit: Int) async throws {
        let server = try await Live.demo(200)
        defer { server.removeData() }
        let before = try await Live.walk(server)
        let session = try Live.session(on: server, limit: limit)
        try await session.open(around: before.items[100].id)
        while await session.snapshot.itemCount < 10 { try await session.loadMore() }
        let opened = await session.snapshot
        #expect(opened.hasMoreBefore)
        _ = try await Live.send("DELETE", "/lists/transactions/items/\(opened.items[0].id)", nil, on: server)
        // Past the view's first item, on the side the view starts from.
        let (top, next) = (try Live.moment(of: before.items[0]), try Live.moment(of: before.items[1]))
        let step = top >= next ? 3_600.0 : -3_600.0
        let moved = opened.items[4]
        _ = try await Live.send(
            "PATCH",
            "/lists/transactions/items/\(moved.id)",
            #"{"data": {"created_at": "\#(Live.timestamp(top.addingTimeInterval(step)))"}}"#,
            on: server
        )
        try await session.catchUp()
        while try await session.loadEarlier() {}
        while try await session.loadMore() {}
        let held = await session.snapshot
        let fresh = try await Live.walk(server)
        #expect(held.items.first?.id == moved.id, "the moved item leads the view")
        #expect(held.items.map(\.id) == fresh.items.map(\.id), "\(held.itemCount) of \(fresh.itemCount) held")
        #expect(await server.stop() == 0)
    }
}
