/// An item as a write stored it, shown as a page shows it.
public struct WrittenItem: Sendable, Hashable {
    /// The item's cell, in the list's default view.
    public let cell: Cell
    /// The source's version after the write.
    public let version: Int64
    /// Whether the write created the item.
    public let created: Bool
    /// Whether this answer replays an earlier create with the same idempotency key.
    public let replayed: Bool
}
