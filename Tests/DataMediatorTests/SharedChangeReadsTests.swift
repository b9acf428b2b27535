import Synchronization
import Testing

@testable import DataMediator

/// Live streams woken by one write share one read of the same changes; a stream woken by a
/// later write, a read older than a second, and a failed read are never shared.
@Suite struct SharedChangeReadsTests {
    final class Reads: Sendable {
        let count = Atomic<Int>(0)
    }

    static func answer(_ version: Int64) -> ChangeSet {
        ChangeSet(list: "l", view: "v", since: 1, version: version, entries: [], next: nil)
    }

    @Test func streamsAskingTheSameAtOnceShareOneRead() async throws {
        let shared = SharedChangeReads()
        let reads = Reads()
        let versions = try await withThrowingTaskGroup(of: Int64.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    try await shared.changes(binding: "v", since: 1, limit: 10, generation: 1) {
                        reads.count.add(1, ordering: .relaxed)
                        try await Task.sleep(for: .milliseconds(50))
                        return Self.answer(2)
                    }.version
                }
            }
            return try await group.reduce(into: [Int64]()) { $0.append($1) }
        }
        #expect(versions == Array(repeating: 2, count: 20))
        #expect(reads.count.load(ordering: .relaxed) == 1)
        // Another question is another read; so is the same after a newer write.
        _ = try await shared.changes(binding: "v", since: 0, limit: 10, generation: 1) { Self.answer(2) }
        let newer = try await shared.changes(binding: "v", since: 1, limit: 10, generation: 2) { Self.answer(3) }
        #expect(newer.version == 3)
    }

    @Test func aFailedOrOldReadIsNotShared() async throws {
        struct Unavailable: Error {}
        let shared = SharedChangeReads()
        await #expect(throws: Unavailable.self) {
            try await shared.changes(binding: "v", since: 1, limit: 10, generation: 1) { throw Unavailable() }
        }
        let after = try await shared.changes(binding: "v", since: 1, limit: 10, generation: 1) { Self.answer(2) }
        #expect(after.version == 2)
        try await Task.sleep(for: SharedChangeReads.maximumAge + .milliseconds(100))
        let later = try await shared.changes(binding: "v", since: 1, limit: 10, generation: 1) { Self.answer(4) }
        #expect(later.version == 4, "a read older than its age was shared")
    }

    @Test func aPublishMovesTheGeneration() {
        let notifier = ChangeNotifier()
        let before = notifier.generation
        notifier.publish()
        #expect(notifier.generation == before + 1)
    }

    /// A read is let go once its moment is over, not kept (a batch of changes with their
    /// items) until the list's next stream asks (review 84 F6).
    @Test func aReadIsLetGoOnceItsMomentIsOver() async throws {
        let shared = SharedChangeReads()
        _ = try await shared.changes(binding: "v", since: 1, limit: 10, generation: 1) { Self.answer(2) }
        #expect(shared.keptCount == 1)
        let deadline = ContinuousClock.now + .seconds(120)
        while shared.keptCount > 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        #expect(shared.keptCount == 0)
    }
}
