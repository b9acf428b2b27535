import DataMediatorTesting
import Foundation
import Testing

@testable import DataMediatorClient

/// When the last loaded item goes, changes put right after the items held cannot be told
/// from changes past the page the cursor reads: they are held. The next page reads on from
/// the gone item's place, so when more of them were put than a page shows, those past the
/// page must not stay before it.
@Suite struct BottomBoundaryTests {
    /// A page of `sections` (section id and item ids), as the server answers it.
    static func page(_ sections: [(String, [String])], next: String?) throws -> PageBody {
        let body: [String: Any] = [
            "list": "l", "view": "v", "version": "1",
            "sections": sections.map { section in
                [
                    "id": section.0, "kind": "items", "title": "title \(section.0)", "continues": false,
                    "items": section.1.map { ["id": $0, "type": "row", "rev": "1", "data": [String: Any]()] },
                ] as [String: Any]
            },
            "next": next as Any,
        ]
        let data = try JSONSerialization.data(withJSONObject: body.filter { !($0.value is NSNull) })
        return try JSONDecoder().decode(PageBody.self, from: data)
    }

    static func insert(_ id: String, in section: String, after: String?, sectionAfter: String? = nil) -> ListChange {
        ListChange(
            op: .insert,
            version: 2,
            item: ListItem(id: id, type: "row", rev: "1", data: .object([:])),
            section: section,
            sectionAfter: sectionAfter,
            after: after
        )
    }

    static func shown(_ list: LoadedList) -> [String] {
        list.sections.flatMap { section in section.items.map { "\(section.id):\($0.id)" } }
    }

    /// A list that loaded the first page of `ids` in section `section`, whose last item went.
    static func lastItemGone(_ section: String, _ ids: [String]) throws -> LoadedList {
        var list = LoadedList(list: "l")
        list.replace(with: try page([(section, ids)], next: "after-\(ids.last ?? "")"))
        list.apply(ListChange(op: .delete, version: 2, deletedID: ids.last ?? ""))
        return list
    }

    @Test func itemsPutPastTheNextPageDoNotStayBeforeIt() throws {
        var list = try Self.lastItemGone("a", ["1", "2", "3", "4", "5"])
        var previous = "4"
        for id in ["n1", "n2", "n3", "n4", "n5", "n6", "n7"] {
            list.apply(Self.insert(id, in: "a", after: previous))
            previous = id
        }
        #expect(Self.shown(list).count == 11, "the changes put beside the held items are held")
        list.append(try Self.page([("a", ["n1", "n2", "n3", "n4", "n5"])], next: "after-n5"))
        #expect(Self.shown(list) == ["1", "2", "3", "4", "n1", "n2", "n3", "n4", "n5"].map { "a:\($0)" })
        list.append(try Self.page([("a", ["n6", "n7", "6"])], next: nil))
        let all = ["1", "2", "3", "4", "n1", "n2", "n3", "n4", "n5", "n6", "n7", "6"]
        #expect(Self.shown(list) == all.map { "a:\($0)" })
    }

    @Test func sectionsPutPastTheNextPageDoNotStayBeforeIt() throws {
        var list = try Self.lastItemGone("0a", ["1", "2", "3", "4", "5"])
        var previous = "0a"
        for group in ["0b", "0c", "0d", "0e", "0f", "0g", "0h"] {
            list.apply(Self.insert("in-\(group)", in: group, after: nil, sectionAfter: previous))
            previous = group
        }
        list.append(
            try Self.page(
                [("0b", ["in-0b"]), ("0c", ["in-0c"]), ("0d", ["in-0d"]), ("0e", ["in-0e"]), ("0f", ["in-0f"])],
                next: "after-0f"
            )
        )
        #expect(list.sections.map(\.id) == ["0a", "0b", "0c", "0d", "0e", "0f"])
        #expect(list.sections.last?.title == "title 0f", "the page names the sections it shows")
        #expect(list.untitled.isEmpty, "no section let go stays waiting for a title")
    }

    @Test func itemsPutBeforeTheNextPageStayWhereTheyAre() throws {
        // The page does not show items that sort before its cursor: they stay.
        var list = try Self.lastItemGone("a", ["1", "2", "3"])
        list.apply(Self.insert("before-cursor", in: "a", after: "2"))
        list.append(try Self.page([("a", ["4", "5"])], next: "after-5"))
        #expect(Self.shown(list) == ["1", "2", "before-cursor", "4", "5"].map { "a:\($0)" })
    }

    @Test func anItemAfterAnotherOfASectionNotHeldIsNotPutBesideTheHeldOnes() throws {
        // Section `b` follows `a` but its items are not loaded: an item after one of them
        // lies past them, even with the boundary gone (probe 26).
        var list = try Self.lastItemGone("a", ["1", "2", "3"])
        list.apply(Self.insert("far", in: "b", after: "b-unloaded", sectionAfter: "a"))
        #expect(Self.shown(list) == ["a:1", "a:2"])
        list.apply(Self.insert("head", in: "b", after: nil, sectionAfter: "a"))
        #expect(Self.shown(list) == ["a:1", "a:2", "b:head"], "the head of the next section may be beside")
    }

    @Test func aSessionReadsOnInTheViewsOrderAfterItsLastItemWent() async throws {
        let server = try await Live.demo(200)
        defer { server.removeData() }
        let before = try await Live.walk(server)
        let session = try Live.session(on: server, limit: 5)
        try await session.loadFirstPage()
        let last = try #require(await session.snapshot.items.last)
        let index = try #require(before.items.firstIndex { $0.id == last.id })
        let following = before.items[index + 1]
        let (from, to) = (try Live.moment(of: last), try Live.moment(of: following))
        _ = try await Live.send("DELETE", "/lists/transactions/items/\(last.id)", nil, on: server)
        // Seven items between the gone one and the next, newest first: each sorts right
        // after the one before, more than the five a page shows.
        let span = to.timeIntervalSince(from)
        let moments = (1...7).map { Live.timestamp(from.addingTimeInterval(span * Double($0) / 8)) }
        try #require(Set(moments).count == 7 && !moments.contains(Live.timestamp(to)))
        for moment in moments {
            _ = try await Live.send(
                "POST",
                "/lists/transactions/items",
                #"{"data": {"player": "gap", "points": 1, "reason": "bottom", "created_at": "\#(moment)"}}"#,
                on: server
            )
        }
        try await session.catchUp()
        #expect(try await session.loadMore())
        let held = await session.snapshot
        let fresh = try await Live.walk(server)
        #expect(held.items.map(\.id) == Array(fresh.items.map(\.id).prefix(held.itemCount)))
        #expect(held.sections.map(\.id) == Array(fresh.sections.map(\.id).prefix(held.sections.count)))
        #expect(await server.stop() == 0)
    }
}
