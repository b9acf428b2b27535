/// How a provider's reads stand to a version after waiting for it
/// (``DataProvider/catchUp(to:)``): a read replica replays its primary's writes late.
public enum CatchUp: Sendable, Hashable {
    /// The reads held the version already, or the source never reached it (a version from
    /// another store, or one that was reset): there was nothing to wait for.
    case notBehind
    /// The reads were behind the version and hold it now: a read now sees it.
    case caughtUp
    /// The reads are still behind the version the source reached, after the provider's
    /// bound: a read now would answer as if the client's version were not yet written.
    case stillBehind
}
