import DataMediator
import Synchronization
import Testing

@testable import DataMediatorHTTP

/// The primary's version as a replica's reads look at it: each caller gets a read begun
/// after it asked, callers of one moment share a read, and a primary that does not answer
/// holds them for the bound only.
@Suite struct FreshVersionReadTests {
    /// A primary whose version rises with each write, and whose reads wait until let go.
    final class Primary: Sendable {
        let version = Atomic<Int64>(1)
        let reads = Atomic<Int>(0)
        let held = Atomic<Bool>(true)

        func read() async throws -> Int64 {
            let seen = version.load(ordering: .acquiring)
            reads.add(1, ordering: .relaxed)
            while held.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(5)) }
            return seen
        }
    }

    @Test func callersGetAReadBegunAfterThemAndShareIt() async throws {
        let primary = Primary()
        let fresh = FreshVersionRead(within: .seconds(60)) { try await primary.read() }
        let first = Task { await fresh.value() }
        while primary.reads.load(ordering: .relaxed) == 0 { try await Task.sleep(for: .milliseconds(5)) }
        // A write answered while the first read runs: the callers after it must see it.
        primary.version.store(2, ordering: .releasing)
        let later = (0..<10).map { _ in Task { await fresh.value() } }
        try await Task.sleep(for: .milliseconds(100))
        primary.held.store(false, ordering: .releasing)
        #expect(await first.value == 1)
        for caller in later { #expect(await caller.value == 2, "a read begun before the caller asked") }
        #expect(primary.reads.load(ordering: .relaxed) == 2, "the later callers share one read")
    }

    @Test func aPrimaryThatDoesNotAnswerHoldsForTheBoundAndOneThatFailsIsAskedAgain() async throws {
        let primary = Primary()
        let fresh = FreshVersionRead(within: .milliseconds(500)) { try await primary.read() }
        let start = ContinuousClock.now
        #expect(await fresh.value() == nil)
        #expect(ContinuousClock.now - start >= .milliseconds(500), "answered before the read or its bound")
        // Callers that came while the held read ran share the next read, bound as well.
        let waiting = (0..<3).map { _ in Task { await fresh.value() } }
        for caller in waiting { #expect(await caller.value == nil) }
        primary.held.store(false, ordering: .releasing)
        #expect(await fresh.value() == 1)

        let reads = Atomic<Int>(0)
        let failing = FreshVersionRead(within: .seconds(60)) {
            reads.add(1, ordering: .relaxed)
            throw CancellationError()
        }
        #expect(await failing.value() == nil)
        #expect(await failing.value() == nil)
        #expect(reads.load(ordering: .relaxed) == 2, "a failed read answered a later caller")
    }

    /// A read is every caller's: it runs with the store's whole timeout, not with what is
    /// left of the request that started it (review 84 F1: a chain of reads kept the first
    /// request's time, and once it was spent its callers skipped the wait for writes).
    @Test func aReadRunsOnTheStoresTimeNotOnItsFirstCallers() async throws {
        let seen = Mutex<[Bool]>([])
        let fresh = FreshVersionRead(within: .seconds(60)) {
            seen.withLock { $0.append(ReadTime.began != nil) }
            return 1
        }
        let spent = ContinuousClock.now - .seconds(100)
        let version = await ReadTime.$began.withValue(spent) { await fresh.value() }
        #expect(version == 1)
        #expect(seen.withLock { $0 } == [false])
    }
}
