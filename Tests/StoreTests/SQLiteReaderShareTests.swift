import DataMediatorTesting
import Foundation
import GRDB
import Synchronization
import Testing

@testable import DataMediatorSQLite

/// One client's share of costly requests (`max(2, cores)` by default, each holding one of
/// GRDB's readers while it counts or looks up) leaves readers for other clients' reads
/// (review 80 #7: the pool had as many readers as that share, and one client held them all).
@Suite struct SQLiteReaderShareTests {
    /// How many of the slow reads hold their reader.
    final class HeldReads: Sendable {
        let count = Mutex(0)
    }

    @Test func aClientsShareOfReadsLeavesReadersForOthers() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dm-readers-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try SQLiteStore(path: folder.appendingPathComponent("store.sqlite").path)
        let share = max(2, ProcessInfo.processInfo.activeProcessorCount)
        let released = DispatchSemaphore(value: 0)
        let holding = HeldReads()
        // One client's share of slow reads, each holding its reader until released.
        let slow = (0..<share).map { _ in
            Task.detached {
                try await store.database.read { db in
                    _ = try Int.fetchOne(db, sql: "SELECT 1")
                    holding.count.withLock { $0 += 1 }
                    released.wait()
                }
            }
        }
        let deadline = ContinuousClock.now + .seconds(120)
        while holding.count.withLock({ $0 }) < share, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(holding.count.withLock { $0 } == share)
        // Another client's read, while they hold: answered, not queued behind them.
        let answered = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask { try await store.database.read { db in try Int.fetchOne(db, sql: "SELECT 2") } == 2 }
            group.addTask {
                // Long: the full parallel run starves tasks for tens of seconds.
                try await Task.sleep(for: .seconds(60))
                // Let the slow reads go, so that the read queued behind them ends too.
                for _ in 0..<share { released.signal() }
                return false
            }
            let first = try await group.next() ?? false
            group.cancelAll()
            return first
        }
        #expect(answered, "another read waited for one client's share of slow reads")
        for _ in 0..<share { released.signal() }
        for task in slow { try await task.value }
    }
}
