/// What a session did, for logs and tests.
public struct ListSessionStatistics: Sendable, Hashable {
    /// Changes applied (from `/changes` and `/events`), each version once.
    public var changesApplied = 0
    /// Changes received again with a version already applied, and skipped.
    public var changesSkipped = 0
    /// Event streams opened after the first (reconnections).
    public var reconnects = 0
    /// The reconnection time the event stream set (its last `retry:`), which a dropped
    /// stream waits before it is opened again; nil until a stream set one.
    public var reconnectionTime: Duration?
    /// Reloads: a `410`, a `reload` change or event, or ``ListSession/refresh()``.
    public var reloads = 0
    /// Pages read.
    public var pagesRead = 0
}
