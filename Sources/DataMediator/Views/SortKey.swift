/// One key of a view's order: a field and a direction.
public struct SortKey: Sendable, Hashable {
    /// The direction of a sort key.
    public enum Order: String, Sendable, Hashable {
        /// Smallest first (`null` first).
        case ascending = "asc"
        /// Largest first (`null` last).
        case descending = "desc"
    }

    /// The field sorted on.
    public let field: String
    /// The direction.
    public let order: Order

    /// Creates a sort key.
    public init(_ field: String, _ order: Order = .ascending) {
        self.field = field
        self.order = order
    }
}
