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
                let definition = ListDefinition(
                    name: name,
                    title: name,
                    idField: "id",
                    revisionField: "rev",
                    views: SampleList.views,
                    limits: PageLimits(defaultLimit: 7, maximumLimit: 50),
                    isWritable: true,
                    rules: FieldRules(types: WritableSubject.fields.filter { $0.key != "id" })
                )
                return try store.adapter(
                    for: definition,
                    source: StoreSource(kind: .table(name), fieldTypes: WritableSubject.fields),
                    signer: CursorSigner(secret: SampleList.secret)
                )
            }
            left = try list("left")
            right = try list("right")
        }

        deinit { try? FileManager.default.removeItem(at: directory) }

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

    @Test func aWriteToACappedChildAnswersReloadAndStaticChildrenNeverChange() async throws {
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
        // A write to the capped child: the first items may have moved, so: reload.
        var rightMix = WriteMix(seed: 4)
        try await rightMix.step(subject.right)
        let two = try await screen.changes(view: nil, since: String(start + 1), limit: nil)
        #expect(two.entries.map(\.operation) == [.reload] && two.entries.first?.version == start + 2)
        #expect(try await screen.changes(view: nil, since: String(start + 2), limit: nil).entries.isEmpty)
    }
}
