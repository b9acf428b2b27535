/// One change to a view, as the change log keeps it: what happened to which item, at
/// which version, and where the item stands in the view right after it.
public struct Change: Sendable, Hashable {
    /// What happened, seen from one view.
    public enum Operation: String, Sendable, Hashable {
        /// The item entered the view (created, or changed so that the filter takes it).
        case insert
        /// The item's content changed; its place did not.
        case update
        /// The item changed its section or the item before it.
        case move
        /// The item left the view (deleted, or changed so that the filter drops it).
        case delete
        /// The view changed in ways the source cannot name item by item: reload it.
        case reload
    }

    /// What happened.
    public let operation: Operation
    /// The version the write produced.
    public let version: Int64
    /// The item's id; empty for `reload`.
    public let id: String
    /// The item as stored after the change; nil for `delete` and `reload`.
    public let item: Item?
    /// Where the item stands after the change; set for `insert` and `move` only.
    public let placement: Placement?
    /// The item as stored before the change, for `delete`, `move` and `update`, where the
    /// log kept it (nil in a log written before it was kept): where it stood, for a reader
    /// that must know whether it was among a view's first items (a composite's capped
    /// child).
    public let old: Item?

    /// Creates a change.
    public init(operation: Operation, version: Int64, id: String, item: Item?, placement: Placement?, old: Item? = nil)
    {
        self.operation = operation
        self.version = version
        self.id = id
        self.item = item
        self.placement = placement
        self.old = old
    }
}

/// What one write did to one view, computed inside the write.
public struct ViewChange: Sendable, Hashable {
    /// What happened to the item in the view.
    public let operation: Change.Operation
    /// Where the item stands after the write, for `insert` and `move`.
    public let placement: Placement?

    /// Creates a view change.
    public init(operation: Change.Operation, placement: Placement?) {
        self.operation = operation
        self.placement = placement
    }
}
