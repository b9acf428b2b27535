/// How a provider's reads stand to a version after waiting for it
/// (``DataProvider/catchUp(to:)``): a read replica replays its primary's writes late.
public enum CatchUp: Sendable, Hashable {
    /// Nothing to wait for: the reads see every write at once, or the source never reached
    /// the version (one from another store, or one that was reset).
    case notBehind
    /// The reads hold the version now, whether they had to wait for it or not: a read now
    /// sees it (one made just before may not have, which is why it was asked).
    case caughtUp
    /// The reads are still behind the version the source reached, after the provider's
    /// bound: a read now would answer as if the client's version were not yet written.
    case stillBehind
    /// The provider reads no store a version could be of (a file list, a composite of
    /// such lists): its reads never lag, and say nothing of whether a store's reads hold
    /// the version (a client's write waited for is not done with after such a read).
    case independent
}
