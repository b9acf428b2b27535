/// How a view chooses each item's cell `type`: one fixed type, or the value of a field
/// among types declared up front (so clients can register every cell before the first page).
public enum CellTypeRule: Sendable, Hashable {
    /// Every item has this type.
    case fixed(String)
    /// The type is the field's value when it is one of `types`, else `fallback`.
    case field(String, types: [String], fallback: String)

    /// Every type an item of the view can have, in declaration order.
    public var types: [String] {
        switch self {
        case .fixed(let type): return [type]
        case .field(_, let types, let fallback): return types.contains(fallback) ? types : types + [fallback]
        }
    }

    /// The type of an item.
    public func type(for item: Item) -> String {
        switch self {
        case .fixed(let type): return type
        case .field(let field, _, _): return type(forValue: item[field])
        }
    }

    /// The type of an item whose type field (for ``field(_:types:fallback:)``) holds `value`.
    public func type(forValue value: JSONValue) -> String {
        switch self {
        case .fixed(let type):
            return type
        case .field(_, let types, let fallback):
            if case .string(let text) = value, types.contains(text) { return text }
            return fallback
        }
    }
}
