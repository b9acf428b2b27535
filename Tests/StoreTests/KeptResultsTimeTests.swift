import DataMediator
import Synchronization
import Testing

@testable import DataMediatorSQL

/// A kept result is computed for every request that waits for it: on the store's whole
/// timeout, not on what is left of the request that started it (``ReadTime``; review 84 F2:
/// a request that had spent its time waiting for a replica failed the computation, and
/// every other request waiting at that stamp was answered 503).
@Suite struct KeptResultsTimeTests {
    @Test func aComputationRunsOnTheStoresTimeNotOnItsFirstAskers() async throws {
        let kept = KeptResults<Int>()
        let seen = Mutex<[Bool]>([])
        let spent = ContinuousClock.now - .seconds(100)
        let value = try await ReadTime.$began.withValue(spent) {
            try await kept.value("view", stamp: 1) {
                seen.withLock { $0.append(ReadTime.began != nil) }
                return 7
            }
        }
        #expect(value == 7)
        // And a pass started in the background for a request.
        ReadTime.$began.withValue(spent) {
            kept.refresh("slice#a", stamp: 1) {
                seen.withLock { $0.append(ReadTime.began != nil) }
                return 8
            }
        }
        let deadline = ContinuousClock.now + .seconds(120)
        while kept.latest("slice#a") == nil, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(seen.withLock { $0 } == [false, false])
    }
}
