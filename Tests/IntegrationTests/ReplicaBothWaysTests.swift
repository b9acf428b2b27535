import DataMediator
import DataMediatorTesting
import Foundation
import Testing

/// A list opened at an item and walked both ways through two replicas on one PostgreSQL
/// database, page by page in turn, while the other replica writes between the pages:
/// the pages carry no state of the replica that served them, so the walk is what one
/// replica would serve (API.md, "Both directions and anchored loads").
@Suite struct ReplicaBothWaysTests {
    /// Each page, read through one replica, is followed by a write through the other: an
    /// insert beside an item anywhere in the view, a delete of an item anywhere but the
    /// anchor, or a content update. Every item that stayed is served once, in its order.
    @Test(arguments: ["chronological", "by_player"])
    func aWalkBothWaysAcrossReplicasUnderWritesServesEveryStayedItemOnce(view: String) async throws {
        let url = try await TestDatabase.create()
        let env = ReplicaTests.environment(url)
        let a = try await ServerProcess(arguments: ["--demo-transactions", "150"], environment: env)
        let b = try await ServerProcess(arguments: ["--demo-transactions", "150"], environment: env)
        defer {
            a.removeData()
            b.removeData()
        }
        let replicas = [a, b]
        var initial = WalkCheck()
        var cursor: String?
        repeat {
            let query = "view=\(view)&limit=100" + (cursor.map { "&cursor=\($0)" } ?? "")
            let answer = try await ReplicaTests.request(on: a, "GET", "/lists/transactions/items?\(query)")
            let page = try Page.decode(answer.body)
            initial.add(page)
            cursor = page.next
        } while cursor != nil
        #expect(initial.violations == [])
        let order = initial.items.map(\.id)
        try #require(order.count == 150)
        let times = initial.items.compactMap { cell -> String? in
            if case .string(let time) = cell.data.objectValue?["created_at"] { return time }
            return nil
        }
        try #require(times.count == order.count)

        var random = SplitMix64(seed: view == "by_player" ? 7 : 5)
        let anchor = order[order.count / 2]
        var deleted: Set<String> = []
        var turn = 0
        /// Writes through the replica that did not serve the page just read.
        func write() async throws {
            let writer = replicas[(turn + 1) % 2]
            switch turn % 3 {
            case 0:
                // Beside an item anywhere: ahead of the walk or behind it, either way.
                let beside = random.next(below: times.count)
                let player = ["ana", "bo", "cy"][random.next(below: 3)]
                _ = try await ReplicaTests.create(
                    on: writer,
                    ReplicaTests.transaction(player, points: turn, at: times[beside])
                )
            case 1:
                let victim = order[random.next(below: order.count)]
                guard victim != anchor, !deleted.contains(victim) else { break }
                let answer = try await ReplicaTests.request(on: writer, "DELETE", "/lists/transactions/items/\(victim)")
                #expect(answer.status == 204, "\(String(decoding: answer.body, as: UTF8.self))")
                deleted.insert(victim)
            default:
                let id = order[random.next(below: order.count)]
                if !deleted.contains(id) { try await ReplicaTests.setPoints(of: id, to: turn, on: writer) }
            }
            turn += 1
        }
        func read(_ query: String) async throws -> Page {
            let path = "/lists/transactions/items?view=\(view)&limit=5&\(query)"
            let answer = try await ReplicaTests.request(on: replicas[turn % 2], "GET", path)
            try #require(answer.status == 200, "\(path): \(String(decoding: answer.body, as: UTF8.self))")
            return try Page.decode(answer.body)
        }

        let first = try await read("around=\(anchor)")
        #expect(first.items.map(\.id).contains(anchor))
        var served = first.items.map(\.id)
        try await write()
        var prev = first.prev
        while let cursor = prev {
            let page = try await read("cursor=\(cursor)")
            served = page.items.map(\.id) + served
            prev = page.prev
            try await write()
        }
        var next = first.next
        while let cursor = next {
            let page = try await read("cursor=\(cursor)")
            served += page.items.map(\.id)
            next = page.next
            try await write()
        }
        #expect(deleted.count > 5)
        #expect(Set(served).count == served.count, "an item was served twice")
        let stayed = order.filter { !deleted.contains($0) }
        let missing = Set(stayed).subtracting(served)
        #expect(missing.isEmpty, "skipped: \(missing.sorted())")
        #expect(served.filter(Set(stayed).contains) == stayed, "the stayed items out of their order")
        #expect(await a.stop() == 0)
        #expect(await b.stop() == 0)
    }
}
