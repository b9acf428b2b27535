import DataMediator
import DataMediatorPostgres
import DataMediatorSQL
import DataMediatorSQLite
import DataMediatorTesting
import Foundation
import Testing

/// The observer half of the contract on every writable store: a client that walked the
/// pages while writes happened catches up through `changes` to exactly a fresh walk, and a
/// walk under concurrent inserts and deletes serves each item once and skips none.
@Suite struct ChangeReplayTests {
    /// Every page of a view, two items each, with `between` run after each page (it returns
    /// how many writes it made); the pages and the number of writes.
    static func walk(
        _ adapter: ListAdapter,
        view: String?,
        between: () async throws -> Int
    ) async throws -> (pages: [Page], writes: Int) {
        var pages: [Page] = []
        var cursor: String?
        var writes = 0
        repeat {
            let page = try await adapter.page(view: view, limit: "2", cursor: cursor)
            pages.append(page)
            cursor = page.next
            writes += try await between()
        } while cursor != nil
        return (pages, writes)
    }

    /// Every change of a view since `since`, read `limit` at a time through `next`.
    static func changes(
        of adapter: ListAdapter,
        view: String?,
        since start: Int64,
        limit: Int
    ) async throws -> [ChangeSet.Entry] {
        var since = String(start)
        var changes: [ChangeSet.Entry] = []
        while true {
            let answer = try await adapter.changes(view: view, since: since, limit: String(limit))
            changes += answer.entries
            guard let next = answer.next else { return changes }
            #expect(!answer.entries.isEmpty && answer.entries.count <= limit)
            since = String(next)
        }
    }

    static func replica(
        of adapter: ListAdapter,
        view: String,
        limit: Int,
        slice: SliceRequest = .whole
    ) async throws -> ListReplica {
        var replica = ListReplica()
        var cursor: String?
        repeat {
            let page = try await adapter.page(view: view, limit: String(limit), cursor: cursor, slice: slice)
            replica.add(page)
            cursor = page.next
        } while cursor != nil
        return replica
    }

    @Test(
        "a walk interleaved with writes, then the changes since its first page, equals a fresh walk",
        arguments: WritableKind.allCases,
        SampleList.views.map(\.name)
    )
    func replayedChangesReachTheFreshWalk(kind: WritableKind, view: String) async throws {
        for seed in UInt64(1)...3 {
            let subject = try await WritableSubject(kind)
            defer { withExtendedLifetime(subject) {} }
            let adapter = subject.adapter
            var mix = WriteMix(seed: seed &* 7919 &+ UInt64(view.utf8.count))
            for index in 0..<100 {
                _ = try await adapter.create(body: .object(["id": .string("s-\(index)"), "data": mix.data()]))
                mix.ids.append("s-\(index)")
            }
            for _ in 0..<50 { try await mix.step(adapter) }

            let (pages, writes) = try await Self.walk(adapter, view: view) {
                let count = Int.random(in: 2...12, using: &mix.random)
                for _ in 0..<count { try await mix.step(adapter) }
                return count
            }
            #expect(writes >= 150, "the walk interleaved only \(writes) writes")
            for _ in 0..<50 { try await mix.step(adapter) }

            let changes = try await Self.changes(
                of: adapter,
                view: view,
                since: try #require(pages.first).version,
                limit: 37
            )
            let applied = changes.count
            let replica = ListReplica.replaying(pages: pages, changes: changes)
            #expect(applied > 100)
            let fresh = try await Self.replica(of: adapter, view: view, limit: 9)
            #expect(replica.outline == fresh.outline, "seed \(seed)")
            #expect(replica.sections.map(\.cells) == fresh.sections.map(\.cells), "cells differ in content")
            #expect(replica.unknownNeighbours == 0)
        }
    }

    @Test(
        "a still snapshot plus every change since it equals a fresh walk",
        arguments: WritableKind.allCases,
        SampleList.views.map(\.name)
    )
    func changesAfterAStillSnapshot(kind: WritableKind, view: String) async throws {
        let subject = try await WritableSubject(kind)
        defer { withExtendedLifetime(subject) {} }
        let adapter = subject.adapter
        var mix = WriteMix(seed: 5)
        for _ in 0..<80 { try await mix.step(adapter) }
        var replica = try await Self.replica(of: adapter, view: view, limit: 50)
        let since = try await adapter.currentVersion()
        for step in 0..<300 {
            try await mix.step(adapter)
            let changes = try await adapter.changes(view: view, since: String(since + Int64(step)), limit: nil)
            for entry in changes.entries where entry.version == since + Int64(step) + 1 { replica.apply(entry) }
            let fresh = try await Self.replica(of: adapter, view: view, limit: 50)
            try #require(replica.outline == fresh.outline, "after write \(step + 1)")
        }
        #expect(replica.unknownNeighbours == 0)
    }

    @Test(
        "each slice's snapshot plus its changes equals a fresh walk of it, while writes move items between slices",
        arguments: WritableKind.allCases
    )
    func changesOfASliceReachItsFreshWalk(kind: WritableKind) async throws {
        let subject = try await WritableSubject(kind)
        defer { withExtendedLifetime(subject) {} }
        let adapter = subject.adapter
        var mix = WriteMix(seed: 11)
        for _ in 0..<60 { try await mix.step(adapter) }
        let slices = SampleList.kinds.map { SliceRequest(parameters: ["kind": [$0]]) }
        var replicas: [ListReplica] = []
        for slice in slices {
            replicas.append(try await Self.replica(of: adapter, view: "by_day", limit: 50, slice: slice))
        }
        var since = try await adapter.currentVersion()
        var moves = 0
        for step in 0..<240 {
            try await mix.step(adapter)
            for (index, slice) in slices.enumerated() {
                let changes = try await adapter.changes(view: "by_day", since: String(since), limit: nil, slice: slice)
                for entry in changes.entries {
                    replicas[index].apply(entry)
                    if entry.operation == .delete || entry.operation == .insert { moves += 1 }
                }
                let fresh = try await Self.replica(of: adapter, view: "by_day", limit: 50, slice: slice)
                try #require(replicas[index].outline == fresh.outline, "slice \(index) after write \(step + 1)")
            }
            since = try await adapter.currentVersion()
        }
        #expect(moves > 100, "only \(moves) inserts and deletes reached the slices")
        #expect(replicas.allSatisfy { $0.unknownNeighbours == 0 })
    }

    @Test("changes name each op with its version, section and neighbour", arguments: WritableKind.allCases)
    func changesDescribeEachWrite(kind: WritableKind) async throws {
        let subject = try await WritableSubject(kind)
        defer { withExtendedLifetime(subject) {} }
        let adapter = subject.adapter
        func write(_ id: String, group: String, score: Int64) async throws {
            _ = try await adapter.replace(
                id: id,
                body: .object([
                    "data": .object([
                        "group": .string(group), "score": .integer(score), "created": .string("2026-11-01T10:00:00Z"),
                    ])
                ])
            )
        }
        try await write("a", group: "alpha", score: 5)  // version 1
        try await write("b", group: "alpha", score: 3)  // 2: after a
        try await write("c", group: "beta", score: 9)  // 3: new section after alpha
        try await write("b", group: "alpha", score: 1)  // 4: content and place in alpha unchanged
        try await write("b", group: "beta", score: 2)  // 5: moves to beta, after c
        _ = try await adapter.delete(id: "a")  // 6
        let changes = try await adapter.changes(view: "by_group", since: "0", limit: nil)
        #expect(changes.version == 6 && changes.since == 0 && changes.next == nil)
        let summary = changes.entries.map { entry in
            [
                entry.operation.rawValue, String(entry.version), entry.cell?.id ?? entry.id,
                entry.placement?.section ?? "-", entry.placement?.sectionAfter ?? "-", entry.placement?.after ?? "-",
            ].joined(separator: " ")
        }
        #expect(
            summary == [
                "insert 1 a alpha - -",
                "insert 2 b alpha - a",
                "insert 3 c beta alpha -",
                "update 4 b - - -",
                "move 5 b beta alpha c",
                "delete 6 a - - -",
            ]
        )
        // The `positive` view's filter (score > 0) sees the same writes as inserts and deletes.
        _ = try await adapter.patch(id: "c", body: .object(["data": .object(["score": .integer(-1)])]))
        let positive = try await adapter.changes(view: "positive", since: "5", limit: nil)
        #expect(positive.entries.map(\.operation) == [.delete, .delete])
        #expect(positive.entries.map(\.version) == [6, 7])
        #expect(positive.entries.map(\.id) == ["a", "c"])

        // A version the list has not reached, past 64 bits too, is gone (the client reloads).
        for future in ["8", "99999999999999999999"] {
            let gone = await #expect(throws: DataMediatorError.self) {
                _ = try await adapter.changes(view: nil, since: future, limit: nil)
            }
            #expect(gone?.code == .historyGone, "since=\(future)")
        }
        for bad in [nil, "", "-1", "x", "1.5", "+1"] {
            let error = await #expect(throws: DataMediatorError.self) {
                _ = try await adapter.changes(view: nil, since: bad, limit: nil)
            }
            #expect(error?.code == .badRequest, "since=\(bad ?? "nil")")
        }
    }

    @Test("history older than the kept versions is gone", arguments: WritableKind.allCases)
    func historyIsBounded(kind: WritableKind) async throws {
        let subject = try await WritableSubject(kind, history: 5)
        defer { withExtendedLifetime(subject) {} }
        let adapter = subject.adapter
        for index in 0..<12 {
            _ = try await adapter.create(body: .object(["id": .string("x\(index)"), "data": .object([:])]))
        }
        let kept = try await adapter.changes(view: "flat", since: "7", limit: nil)
        #expect(kept.entries.map(\.version) == [8, 9, 10, 11, 12])
        let error = await #expect(throws: DataMediatorError.self) {
            _ = try await adapter.changes(view: "flat", since: "6", limit: nil)
        }
        #expect(error?.code == .historyGone)
    }

    /// Creates 150 items (`s-0`...) and returns their ids.
    static func seed(_ adapter: ListAdapter, _ mix: inout WriteMix) async throws -> [String] {
        var ids: [String] = []
        for index in 0..<150 {
            let id = "s-\(index)"
            _ = try await adapter.create(body: .object(["id": .string(id), "data": mix.data()]))
            ids.append(id)
        }
        return ids
    }

    /// Writes beside a walk: for each of `doomed`, two new items and its delete; the
    /// task's value is the ids deleted.
    static func storm(
        _ adapter: ListAdapter,
        _ mix: WriteMix,
        deleting doomed: Set<String>
    ) -> Task<[String], any Error> {
        Task {
            var mix = mix
            var deleted: [String] = []
            for (index, id) in doomed.sorted().enumerated() {
                _ = try await adapter.create(body: .object(["id": .string("c-\(index)"), "data": mix.data()]))
                _ = try await adapter.create(body: .object(["id": .string("d-\(index)"), "data": mix.data()]))
                _ = try await adapter.delete(id: id)
                deleted.append(id)
                await Task.yield()
            }
            return deleted
        }
    }

    @Test(
        "a walk under concurrent inserts and deletes serves every item once and skips none that stayed",
        arguments: WritableKind.allCases,
        ["by_day", "by_group", "positive"]
    )
    func walkUnderConcurrentWrites(kind: WritableKind, view: String) async throws {
        let subject = try await WritableSubject(kind)
        defer { withExtendedLifetime(subject) {} }
        let adapter = subject.adapter
        var mix = WriteMix(seed: 99)
        let before = try await Self.seed(adapter, &mix)
        let doomed = Set(before.shuffled(using: &mix.random).prefix(40))
        // Which of them the view shows; the writes below never change an existing item.
        let shownBefore = Set(
            try await ChangeReplayTests.replica(of: adapter, view: view, limit: 50).sections.flatMap(\.cells).map(\.id)
        )
        let writer = Self.storm(adapter, mix, deleting: doomed)
        var served: [String] = []
        var cursor: String?
        repeat {
            let page = try await adapter.page(view: view, limit: "3", cursor: cursor)
            served += page.items.map(\.id)
            cursor = page.next
            await Task.yield()
        } while cursor != nil
        let deleted = Set(try await writer.value)
        #expect(deleted.count == 40)
        #expect(Set(served).count == served.count, "an item was served twice")
        let expected = shownBefore.subtracting(deleted)
        #expect(!expected.isEmpty)
        let fresh = Set(
            try await ChangeReplayTests.replica(of: adapter, view: view, limit: 50).sections.flatMap(\.cells).map(\.id)
        )
        #expect(expected.isSubset(of: fresh), "an item that stayed is gone from the view")
        let missing = expected.subtracting(served)
        #expect(missing.isEmpty, "skipped: \(missing.sorted())")
    }
}
