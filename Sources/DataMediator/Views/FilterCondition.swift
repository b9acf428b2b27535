/// One condition of a view's filter: an item is in the view when all its conditions hold.
///
/// Conditions compare with the order of ``JSONValue/compare(_:_:)``; a `null` field
/// satisfies only `eq null` and `ne` of a non-null value, as in SQL's `IS` / `IS NOT`.
public struct FilterCondition: Sendable, Hashable {
    /// A comparison.
    public enum Operator: String, Sendable, Hashable, CaseIterable {
        /// Equal.
        case eq
        /// Not equal.
        case ne
        /// Less than.
        case lt
        /// Less than or equal.
        case le
        /// Greater than.
        case gt
        /// Greater than or equal.
        case ge
    }

    /// The field compared.
    public let field: String
    /// The comparison.
    public let op: Operator
    /// The value compared with.
    public let value: JSONValue

    /// Creates a condition.
    public init(field: String, op: Operator, value: JSONValue) {
        self.field = field
        self.op = op
        self.value = value
    }

    /// Whether a item satisfies the condition.
    public func matches(_ item: Item) -> Bool {
        let fieldValue = item[field]
        switch op {
        case .eq: return JSONValue.compare(fieldValue, value) == 0
        case .ne: return JSONValue.compare(fieldValue, value) != 0
        default: break
        }
        // SQL compares nothing with NULL: an ordering condition on a null side is false.
        if fieldValue == .null || value == .null { return false }
        let order = JSONValue.compare(fieldValue, value)
        switch op {
        case .lt: return order < 0
        case .le: return order <= 0
        case .gt: return order > 0
        case .ge: return order >= 0
        case .eq, .ne: return false
        }
    }
}
