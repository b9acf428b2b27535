import Foundation
import Testing

@testable import DataMediatorClient

/// A session's updates for one reader: in order, bounded when the reader lags, and each
/// batch applies to what the reader shows.
@Suite struct ListUpdatesTests {
    /// Snapshot `step` of a list that gains, loses and reorders items step by step.
    static func snapshot(_ step: Int) -> ListSnapshot {
        let ids = (0..<(3 + step % 5)).map { "i\(($0 * 7 + step) % 11)" }
        let unique = ids.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        let items = unique.map { ListItem(id: $0, type: "row", rev: "\(step)", data: .object([:])) }
        let sections = [
            ListSection(id: "a", title: nil, items: Array(items.prefix(2))),
            ListSection(id: step % 2 == 0 ? "b" : "c", title: nil, items: Array(items.dropFirst(2))),
        ]
        return ListSnapshot(
            list: "l",
            view: "v",
            version: Int64(step),
            sections: sections,
            nextCursor: nil,
            previousCursor: nil
        )
    }

    /// Publishes steps 1...`count` as a session does: each batch from the step before.
    static func publish(_ count: Int, to updates: ListUpdates) {
        var previous = ListSnapshot.empty(list: "l")
        for step in 1...count {
            let next = snapshot(step)
            updates.yield(ListUpdate(batch: BatchUpdate(from: previous, to: next), snapshot: next))
            previous = next
        }
    }

    @Test func aReaderFarBehindGetsTheOldestMergedAndEveryBatchApplies() async throws {
        let updates = ListUpdates(from: .empty(list: "l"), limit: 4)
        Self.publish(50, to: updates)
        updates.finish()
        var shown = ListSnapshot.empty(list: "l")
        var versions: [Int64] = []
        for await update in updates {
            #expect(try update.batch.applied(to: shown, dataSource: update.snapshot) == update.snapshot.sections)
            shown = update.snapshot
            versions.append(update.snapshot.version)
        }
        // At most `limit` held: the first merged up to step 47, then the last three as they came.
        #expect(versions == [47, 48, 49, 50])
        #expect(shown == Self.snapshot(50))
    }

    @Test func aReaderKeepingUpGetsEveryUpdate() async throws {
        let updates = ListUpdates(from: .empty(list: "l"), limit: 4)
        let reader = Task {
            var versions: [Int64] = []
            for await update in updates { versions.append(update.snapshot.version) }
            return versions
        }
        var previous = ListSnapshot.empty(list: "l")
        for step in 1...20 {
            let next = Self.snapshot(step)
            updates.yield(ListUpdate(batch: BatchUpdate(from: previous, to: next), snapshot: next))
            previous = next
            // Each is taken before the next comes: nothing is merged.
            while updates.heldCount > 0 { await Task.yield() }
        }
        updates.finish()
        #expect(await reader.value == Array(1...20))
    }

    @Test(.timeLimit(.minutes(1))) func aSecondReaderEndsTheFirstOnesWaitInsteadOfLeavingItForEver() async throws {
        let updates = ListUpdates(from: .empty(list: "l"))
        let first = Task { await updates.next() }
        while !updates.isWaited { await Task.yield() }
        let second = Task { await updates.next() }
        #expect(await first.value == nil)
        Self.publish(1, to: updates)
        #expect(await second.value?.snapshot.version == 1)
    }

    @Test func aCancelledReaderStopsWaiting() async throws {
        let updates = ListUpdates(from: .empty(list: "l"))
        let reader = Task { () -> Int in
            var count = 0
            for await _ in updates { count += 1 }
            return count
        }
        try await Task.sleep(for: .milliseconds(100))
        reader.cancel()
        #expect(await reader.value == 0)
    }
}
