extension Duration {
    /// The duration in whole nanoseconds (what metrics timers and event-loop timers take).
    public var nanoseconds: Int64 {
        components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
    }

    /// The duration in seconds, with their fraction (what rates, lags and `TimeInterval`s
    /// are counted in).
    public var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
