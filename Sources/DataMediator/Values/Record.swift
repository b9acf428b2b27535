/// A row of a source: its fields by name, as a provider read them.
public struct Record: Sendable, Hashable {
    /// The fields by name.
    public var fields: [String: JSONValue]

    /// Creates a record from its fields.
    public init(_ fields: [String: JSONValue]) {
        self.fields = fields
    }

    /// The value of a field; `null` when the record has no such field.
    public subscript(field: String) -> JSONValue {
        get { fields[field] ?? .null }
        set { fields[field] = newValue }
    }
}
