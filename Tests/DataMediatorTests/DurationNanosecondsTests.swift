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
