import DataMediator
import Testing

@Suite struct SplitMix64Tests {
    /// The reference outputs of SplitMix64 from seed 0 (Vigna's splitmix64.c): the demo's
    /// data and replayed test mixes stay the same only while these do.
    @Test func outputsFollowTheReferenceSequence() {
        var generator = SplitMix64(seed: 0)
        #expect(generator.next() == 0xE220_A839_7B1D_CDAF)
        #expect(generator.next() == 0x6E78_9E6A_A1B9_65F4)
        #expect(generator.next() == 0x06C4_5D18_8009_454F)
    }

    @Test func theFinalizerScattersNeighboursAndIsOneToOneOnASample() {
        #expect(SplitMix64.mix(1) == 0x5692_161D_100B_05E5)
        let outputs = Set((0..<10_000 as Range<UInt64>).map(SplitMix64.mix))
        #expect(outputs.count == 10_000)
        var generator = SplitMix64(seed: 42)
        for _ in 0..<1_000 {
            #expect((0..<7).contains(generator.next(below: 7)))
        }
    }
}
