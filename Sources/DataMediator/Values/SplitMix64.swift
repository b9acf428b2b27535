/// A small, fast, seedable random number generator (SplitMix64): the demo's data is the
/// same on every machine and run, a failing mix of writes in a test can be replayed, and
/// its finalizer (``mix(_:)``, a bijection of 64-bit values) hides a counter's order.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator whose outputs follow from `seed` alone.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return Self.mix(state)
    }

    /// A number in `0..<bound` (with the small modulo bias the demo does not mind);
    /// `bound` must be positive.
    public mutating func next(below bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }

    /// SplitMix64's finalizer: every input maps to a different, well-scattered output.
    public static func mix(_ value: UInt64) -> UInt64 {
        var mixed = value
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}
