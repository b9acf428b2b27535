import DataMediator
import Testing

@Suite struct DurationNanosecondsTests {
    @Test func wholeNanosecondsOfSecondsAndFractions() {
        #expect(Duration.seconds(5).nanoseconds == 5_000_000_000)
        #expect(Duration.milliseconds(1500).nanoseconds == 1_500_000_000)
        #expect(Duration.nanoseconds(7).nanoseconds == 7)
        #expect(Duration.microseconds(-2).nanoseconds == -2_000)
    }
}

/// A duration in seconds with their fraction.
@Suite struct DurationSecondsTests {
    @Test func secondsKeepTheirFraction() {
        #expect(Duration.milliseconds(2_500).inSeconds == 2.5)
        #expect(Duration.seconds(-3).inSeconds == -3)
        #expect(abs(Duration.nanoseconds(1).inSeconds - 1e-9) < 1e-18)
    }
}
