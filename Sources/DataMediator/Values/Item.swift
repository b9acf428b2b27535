/// An item of a source: its fields by name, as a provider read them (a row, a JSON object).
public struct Item: Sendable, Hashable {
    /// The fields by name.
    public var fields: [String: JSONValue]

    /// Creates a item from its fields.
    public init(_ fields: [String: JSONValue]) {
        self.fields = fields
    }

    /// The value of a field; `null` when the item has no such field.
    public subscript(field: String) -> JSONValue {
        get { fields[field] ?? .null }
        set { fields[field] = newValue }
    }
}
