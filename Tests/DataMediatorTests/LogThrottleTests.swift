import Testing

@testable import DataMediator

/// A flood of events of one kind makes one log line each interval, telling how many came.
@Suite struct LogThrottleTests {
    @Test func oneLineEachIntervalTellsHowManyCameSince() {
        let throttle = LogThrottle(interval: .seconds(10))
        let start = ContinuousClock.now
        #expect(throttle.count(at: start) == 1, "the first is told at once")
        for second in 1...9 { #expect(throttle.count(at: start + .seconds(second)) == nil) }
        #expect(throttle.count(at: start + .seconds(10)) == 10, "the nine since and this one")
        #expect(throttle.count(at: start + .seconds(11)) == nil)
        #expect(throttle.count(at: start + .seconds(60)) == 2)
    }
}
