import DataMediator
import DataMediatorSQL
import DataMediatorSQLite
import DataMediatorTesting
import Foundation
import Testing

/// A composite's changes are its children's, merged in the store's version order and
/// given the composite's ids: a client that walked a composite while its children were
/// written catches up to exactly a fresh walk.
@Suite struct CompositeChangeTests {
    /// Two writable lists in one SQLite store, and composites over them.
    final class Subject: Sendable {
        let directory: URL
        let left: ListAdapter
        let right: ListAdapter
        let signer = CursorSigner(secret: SampleList.secret)

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("dm-composite-\(UUID())")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let store = try SQLiteStore(path: directory.appendingPathComponent("store.sqlite").path)
            func list(_ name: String) throws -> ListAdapter {
                try store.adapter(
                    for: WritableSubject.definition(name, weighed: true),
                    source: StoreSource(kind: .table(name), fieldTypes: WritableSubject.fields),
                    signer: CursorSigner(secret: SampleList.secret)
                )
            }
            left = try list("left")
            right = try list("right")
        }

        deinit { try? FileManager.default.removeItem(at: directory) }

        /// Writes item `id` of `right` with `score`.
        func score(_ id: String, _ score: Int64) async throws {
            let data: JSONValue = .object(["title": .string(id), "score": .integer(score)])
            _ = try await right.replace(id: id, body: .object(["data": data]))
        }

        static func note(_ name: String, _ text: String) -> CompositeChild {
            CompositeChild(
                name: name,
                content: .section(
                    id: "s",
                    title: text,
                    cells: [Cell(id: "1", type: "note", rev: "1", data: .object(["text": .string(text)]))]
                )
            )
        }

        /// A static section, a view of `left`, another static section, a view of `right`.
        func screen(leftView: String, rightView: String, rightCap: Int? = nil) throws -> ListAdapter {
            ListAdapter.composite(
                name: "screen",
                title: "Screen",
                children: [
                    Self.note("hi", "Hello"),
                    CompositeChild(name: "l", content: .list(left, view: try left.definition.view(named: leftView))),
                    Self.note("mid", "Between"),
                    CompositeChild(
                        name: "r",
                        content: .list(right, view: try right.definition.view(named: rightView)),
                        cap: rightCap,
                        more: rightCap != nil
                    ),
                ],
                signer: signer
            )
        }
    }

    @Test(
        "a composite walk interleaved with writes to its children, then its changes, equals a fresh walk",
        arguments: [("by_group", "by_day"), ("positive", "flat"), ("by_day", "by_group")]
    )
    func replayedChangesReachTheFreshWalk(leftView: String, rightView: String) async throws {
        let subject = try Subject()
        let screen = try subject.screen(leftView: leftView, rightView: rightView)
        var leftMix = WriteMix(seed: 41)
        var rightMix = WriteMix(seed: 43)
        for _ in 0..<60 {
            try await leftMix.step(subject.left)
            try await rightMix.step(subject.right)
        }
        let (pages, writes) = try await ChangeReplayTests.walk(screen, view: nil) {
            let count = Int.random(in: 2...7, using: &leftMix.random)
            for _ in 0..<count {
                if Bool.random(using: &leftMix.random) {
                    try await leftMix.step(subject.left)
                } else {
                    try await rightMix.step(subject.right)
                }
            }
            return count
        }
        #expect(writes >= 100, "the walk interleaved only \(writes) writes")
        for _ in 0..<30 { try await rightMix.step(subject.right) }

        let changes = try await ChangeReplayTests.changes(
            of: screen,
            view: nil,
            since: try #require(pages.first).version,
            limit: 23
        )
        #expect(changes.allSatisfy { $0.operation != .reload })
        #expect(Set(changes.map { $0.id.prefix(2) }) == ["l/", "r/"])
        #expect(zip(changes, changes.dropFirst()).allSatisfy { $0.version <= $1.version })
        let replica = ListReplica.replaying(pages: pages, changes: changes)
        let fresh = try await ChangeReplayTests.replica(of: screen, view: "all", limit: 11)
        #expect(replica.outline == fresh.outline)
        #expect(replica.sections.map(\.cells) == fresh.sections.map(\.cells), "cells differ in content")
        #expect(replica.unknownNeighbours == 0)
    }

    @Test(
        "a capped child's writes are what its first items went through, and a client applying them ends with a fresh walk",
        arguments: ["by_group", "by_day", "flat"],
        [1, 3]
    )
    func cappedChildChangesReachTheFreshWalk(view: String, cap: Int) async throws {
        let subject = try Subject()
        let screen = try subject.screen(leftView: "flat", rightView: view, rightCap: cap)
        var mix = WriteMix(seed: 47 &+ UInt64(cap))
        for _ in 0..<30 { try await mix.step(subject.right) }
        var (replica, version) = try await Self.snapshot(of: screen)
        var changed = 0
        for step in 0..<60 {
            try await mix.step(subject.right)
            let answer = try await screen.changes(view: nil, since: String(version), limit: nil)
            #expect(answer.entries.allSatisfy { $0.operation != .reload }, "write \(step + 1)")
            for entry in answer.entries { replica.apply(entry) }
            changed += answer.entries.count
            version = answer.version
            let fresh = try await ChangeReplayTests.replica(of: screen, view: "all", limit: 11)
            try #require(replica.outline == fresh.outline, "after write \(step + 1)")
            let differing = zip(replica.sections.flatMap(\.cells), fresh.sections.flatMap(\.cells)).first { $0 != $1 }
            #expect(
                differing == nil,
                "after write \(step + 1): \(differing.map { "\($0.0.id) \($0.0.data) vs \($0.1.data)" } ?? "")"
            )
        }
        #expect(changed >= 3, "only \(changed) changes reached the composite")
        #expect(replica.unknownNeighbours == 0)
        // Many writes at once, read in one answer, end the same way.
        let (start, since) = try await Self.snapshot(of: screen)
        replica = start
        for _ in 0..<40 { try await mix.step(subject.right) }
        let answer = try await screen.changes(view: nil, since: String(since), limit: nil)
        #expect(answer.entries.allSatisfy { $0.operation != .reload })
        for entry in answer.entries { replica.apply(entry) }
        let fresh = try await ChangeReplayTests.replica(of: screen, view: "all", limit: 11)
        #expect(replica.outline == fresh.outline)
        #expect(replica.sections.map(\.cells) == fresh.sections.map(\.cells))
    }

    /// A composite's whole walk and the version it was read at, read while nothing writes.
    static func snapshot(of screen: ListAdapter) async throws -> (ListReplica, Int64) {
        let version = try await screen.currentVersion()
        return (try await ChangeReplayTests.replica(of: screen, view: "all", limit: 50), version)
    }

    @Test func aWriteToACappedChildIsAnInsertAndTheDeleteItPushesOutAndStaticChildrenNeverChange() async throws {
        let subject = try Subject()
        let screen = try subject.screen(leftView: "flat", rightView: "flat", rightCap: 2)
        var mix = WriteMix(seed: 3)
        for _ in 0..<5 { try await mix.step(subject.left) }
        let start = try await screen.currentVersion()
        #expect(start == 5)
        // A write to the uncapped child: item changes, in the composite's ids.
        try await mix.step(subject.left)
        let one = try await screen.changes(view: nil, since: String(start), limit: nil)
        #expect(one.entries.map(\.operation) == [.insert] && one.entries.first?.id.hasPrefix("l/") == true)
        #expect(one.version == start + 1)
        // Three items in the capped child, in id order ("flat" sorts by score, then id): the
        // first two show, and the more cell.
        let row: JSONValue = .object([
            "group": .string("alpha"), "score": .null, "created": .string("2026-11-01T10:00:00Z"),
            "kind": .string("big"), "title": .string("t"),
        ])
        for index in 0..<3 {
            _ = try await subject.right.create(body: .object(["id": .string("r-\(index)"), "data": row]))
        }
        let filled = try await screen.changes(view: nil, since: String(start + 1), limit: nil)
        #expect(filled.entries.map(\.operation) == [.insert, .insert, .insert])
        #expect(filled.entries.last?.id == "r:more")
        // One more, first in the view ("flat" sorts by id): it enters, the second leaves,
        // and the more cell's cursor moves.
        _ = try await subject.right.create(body: .object(["id": .string("0-first"), "data": row]))
        let pushed = try await screen.changes(view: nil, since: String(start + 4), limit: nil)
        #expect(pushed.entries.map(\.operation) == [.delete, .insert, .update])
        #expect(pushed.entries.map(\.id) == ["r/r-1", "r/0-first", "r:more"])
        #expect(pushed.entries[1].placement?.after == nil && pushed.entries[1].placement?.section == "r/flat")
        #expect(try await screen.changes(view: nil, since: String(start + 5), limit: nil).entries.isEmpty)
    }

    /// A capped child's writes that never reach its first items are left out however many
    /// there are (up to 1,000), not answered as a `reload` once they outnumber the answer's
    /// limit.
    @Test func manyWritesBelowACappedChildsFirstItemsAreNoReload() async throws {
        let subject = try Subject()
        let screen = try subject.screen(leftView: "flat", rightView: "flat", rightCap: 2)
        let row: JSONValue = .object([
            "group": .string("alpha"), "score": .null, "created": .string("2026-11-01T10:00:00Z"),
            "kind": .string("big"), "title": .string("t"),
        ])
        for index in 0..<3 {
            _ = try await subject.right.create(body: .object(["id": .string("r-\(index)"), "data": row]))
        }
        let start = try await screen.currentVersion()
        // 150 items after the first two ("flat" sorts by score, then id): none shows.
        for index in 0..<150 {
            _ = try await subject.right.create(body: .object(["id": .string("z-\(index)"), "data": row]))
        }
        _ = try await subject.right.create(body: .object(["id": .string("0-first"), "data": row]))
        for limit in [nil, "1"] {
            let answer = try await screen.changes(view: nil, since: String(start), limit: limit)
            #expect(answer.entries.map(\.operation) == [.delete, .insert, .update], "\(String(describing: limit))")
            #expect(answer.entries.map(\.id) == ["r/r-1", "r/0-first", "r:more"])
            #expect(answer.next == nil && answer.version == start + 151)
        }
    }

    /// A child's whole number of a `number` field is a number in the composite too (`7.0`),
    /// in its pages and its changes, as the child shows it.
    @Test func aChildsNumberFieldIsANumberInTheComposite() async throws {
        let subject = try Subject()
        let screen = try subject.screen(leftView: "flat", rightView: "weighed")
        let start = try await screen.currentVersion()
        let data: JSONValue = .object(["title": .string("w"), "score": .integer(1), "weight": .integer(7)])
        _ = try await subject.right.create(body: .object(["id": .string("w1"), "data": data]))
        func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
        let page = text(try await screen.page(view: nil, limit: "20", cursor: nil).json())
        #expect(page.contains(#""weight":7.0"#), "\(page)")
        let changes = text(try await screen.changes(view: nil, since: String(start), limit: nil).json())
        #expect(changes.contains(#""weight":7.0"#), "\(changes)")
    }

    /// A composite's page read from a `next` says whether its first section began before it
    /// as the children are when it is read (API.md, rule 2), as any list's page does.
    @Test func aCompositePageFromANextSeesDeletesBeforeIt() async throws {
        let subject = try Subject()
        let screen = try subject.screen(leftView: "flat", rightView: "flat")
        for (id, score) in [("l1", 1), ("l2", 2), ("l3", 3)] {
            let data: JSONValue = .object(["title": .string(id), "score": .integer(Int64(score))])
            _ = try await subject.left.create(body: .object(["id": .string(id), "data": data]))
        }
        let first = try await screen.page(view: nil, limit: "2", cursor: nil)
        #expect(first.items.map(\.id) == ["hi/1", "l/l1"])
        let next = try #require(first.next)
        var page = try await screen.page(view: nil, limit: "2", cursor: next)
        #expect(page.items.map(\.id) == ["l/l2", "l/l3"])
        #expect(page.sections.first?.continues == true)
        _ = try await subject.left.delete(id: "l1")
        page = try await screen.page(view: nil, limit: "2", cursor: next)
        #expect(page.items.map(\.id) == ["l/l2", "l/l3"])
        // The static section precedes it; the left child's section begins on this page.
        #expect(page.sections.first?.continues == false)
        let prev = try #require(page.prev)
        #expect(try await screen.page(view: nil, limit: "2", cursor: prev).items.map(\.id) == ["hi/1"])
    }

    /// A capped child shows its first items as they are when a page is read: a cursor
    /// inside it resumes by position among them, so an item a write pushed past the cap is
    /// not served, and the page says what precedes it from the items as they are.
    @Test func aCursorInsideACappedChildFollowsItsFirstItemsAsTheyAre() async throws {
        let subject = try Subject()
        let screen = try subject.screen(leftView: "flat", rightView: "flat", rightCap: 3)
        for (id, value) in [("r1", 1), ("r2", 2), ("r3", 3), ("r4", 4)] { try await subject.score(id, Int64(value)) }
        let first = try await screen.page(view: nil, limit: "3", cursor: nil)
        #expect(first.items.map(\.id) == ["hi/1", "mid/1", "r/r1"])
        let next = try #require(first.next)
        var page = try await screen.page(view: nil, limit: "3", cursor: next)
        #expect(page.items.map(\.id) == ["r/r2", "r/r3", "r:more"])
        #expect(page.sections.first?.continues == true)

        // r1 moved past the cap: the child shows r2, r3, r4, all after the cursor's place,
        // and nothing of it precedes the page.
        try await subject.score("r1", 10)
        page = try await screen.page(view: nil, limit: "3", cursor: next)
        #expect(page.items.map(\.id) == ["r/r2", "r/r3", "r/r4"])
        #expect(page.sections.first?.continues == false)
        let prev = try #require(page.prev)
        #expect(try await screen.page(view: nil, limit: "3", cursor: prev).items.map(\.id) == ["hi/1", "mid/1"])

        // r0 and r00 written first: r3 is pushed past the cap and is served no more.
        try await subject.score("r0", 0)
        try await subject.score("r00", 0)
        page = try await screen.page(view: nil, limit: "3", cursor: next)
        #expect(page.items.map(\.id) == ["r/r2", "r:more"])
        let walk = try await SampleList.walk(screen, view: nil, limit: 2)
        #expect(walk.items.map(\.id) == ["hi/1", "mid/1", "r/r0", "r/r00", "r/r2", "r:more"])
        #expect(walk.violations == [])
    }

    /// A composite capped inside another: cursors into it resume by where items stand in
    /// it (the child it shows them from, and their place there), not by how many it showed
    /// before them, so a write before a cursor's item neither repeats nor skips an item,
    /// and its inner `more` cell stays after every item of its child.
    @Test func aCursorInsideACappedCompositeFollowsItsItemsPlaces() async throws {
        let subject = try Subject()
        let screen = try subject.screen(leftView: "flat", rightView: "flat", rightCap: 3)
        let outer = ListAdapter.composite(
            name: "outer",
            title: "Outer",
            children: [
                CompositeChild(
                    name: "s",
                    content: .list(screen, view: try screen.definition.view(named: nil)),
                    cap: 6,
                    more: true
                ),
                Subject.note("end", "Bye"),
            ],
            signer: subject.signer
        )
        func ids(_ cursor: String, limit: Int = 3) async throws -> [String] {
            try await outer.page(view: nil, limit: String(limit), cursor: cursor).items.map(\.id)
        }
        for (id, value) in [("r1", 1), ("r2", 2), ("r3", 3), ("r4", 4)] { try await subject.score(id, Int64(value)) }
        let first = try await outer.page(view: nil, limit: "3", cursor: nil)
        #expect(first.items.map(\.id) == ["s/hi/1", "s/mid/1", "s/r/r1"])
        let next = try #require(first.next)
        let second = try await outer.page(view: nil, limit: "3", cursor: next)
        #expect(second.items.map(\.id) == ["s/r/r2", "s/r/r3", "s/r:more"])
        let back = try #require(second.prev)
        let atR3 = try await outer.locate(id: "s/r/r3", view: nil).cursor
        let beforeR3 = try await outer.page(view: nil, limit: "1", cursor: atR3).prev
        #expect(try await ids(atR3) == ["s/r/r3", "s/r:more", "end/1"])

        // r1 deleted, before every cursor's item: nothing is served twice or skipped.
        _ = try await subject.right.delete(id: "r1")
        #expect(try await ids(back) == ["s/hi/1", "s/mid/1"])
        #expect(try await ids(atR3) == ["s/r/r3", "s/r/r4", "end/1"])
        #expect(try await ids(try #require(beforeR3), limit: 5) == ["s/hi/1", "s/mid/1", "s/r/r2"])

        // The inner `more` cell: a cursor after it resumes after it, one before it ends
        // before it, wherever the child's last shown item now is.
        for (id, value) in [("r1", 1), ("r5", 5)] { try await subject.score(id, Int64(value)) }
        let atMore = try await outer.locate(id: "s/r:more", view: nil).cursor
        let wide = try await outer.page(view: nil, limit: "2", cursor: atMore)
        #expect(wide.items.map(\.id) == ["s/r:more", "end/1"])
        let afterMore = try #require(try await outer.page(view: nil, limit: "1", cursor: atMore).next)
        let beforeMore = try #require(wide.prev)
        try await subject.score("r0", 0)
        #expect(try await ids(atMore, limit: 1) == ["s/r:more"])
        #expect(try await ids(beforeMore) == ["s/r/r0", "s/r/r1", "s/r/r2"])
        #expect(try await ids(afterMore) == ["end/1"])
        let walk = try await SampleList.walk(outer, view: nil, limit: 2)
        #expect(walk.violations == [])
    }
}
