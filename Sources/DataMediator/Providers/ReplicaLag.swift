/// How far a store's read replica stands behind its primary: what `GET /metrics` shows and
/// what `GET /ready` holds against its bound, for an operator who serves reads from a
/// replica that replays the primary's writes late.
public struct ReplicaLag: Sendable, Hashable {
    /// The store's versions the primary holds and the replica has not replayed yet.
    public let versions: Int64
    /// How long ago the oldest of those versions was first seen on the primary (0 when the
    /// replica holds every version): how stale a read of the replica may be.
    public let seconds: Double

    /// A lag of `versions` versions, the oldest seen `seconds` ago.
    public init(versions: Int64, seconds: Double) {
        self.versions = versions
        self.seconds = seconds
    }
}
