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

    /// The last events of a burst are told when its interval ends, not at the next event,
    /// which may never come (probe 63: six refused connections, a line saying two).
    @Test func aBurstsLastEventsAreToldWhenItsIntervalEnds() {
        let throttle = LogThrottle(interval: .seconds(10))
        let start = ContinuousClock.now
        #expect(throttle.flushDelay(at: start) == nil, "nothing held before a line")
        #expect(throttle.count(at: start) == 1)
        #expect(throttle.flushDelay(at: start) == nil, "nothing held after it")
        #expect(throttle.count(at: start + .seconds(3)) == nil)
        #expect(throttle.flushDelay(at: start + .seconds(3)) == .seconds(7), "the rest of the interval")
        #expect(throttle.flushDelay(at: start + .seconds(3)) == nil, "asked once a line")
        for _ in 0..<4 { #expect(throttle.count(at: start + .seconds(4)) == nil) }
        #expect(throttle.flush(at: start + .seconds(10)) == 5, "every one held")
        #expect(throttle.flush(at: start + .seconds(10)) == nil)
        // The flush was a line: the next within its interval is held, and may be flushed.
        #expect(throttle.count(at: start + .seconds(12)) == nil)
        #expect(throttle.flushDelay(at: start + .seconds(12)) == .seconds(8))
        #expect(throttle.count(at: start + .seconds(20)) == 2, "held or told, none is lost")
    }
}
