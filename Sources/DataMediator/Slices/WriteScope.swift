/// The slice a write by a scoped list's token holder is confined to: the list's scope field
/// and the caller's claim. Their items are theirs alone; another slice's item is, to them,
/// an item that does not exist.
public struct WriteScope: Sendable, Hashable {
    /// The list's scope field.
    public let field: String
    /// The caller's value of it.
    public let value: JSONValue

    /// The slice of `field` equal to `value`.
    public init(field: String, value: JSONValue) {
        self.field = field
        self.value = value
    }

    /// Whether `item` is in the slice.
    public func contains(_ item: Item) -> Bool {
        JSONValue.compare(item[field], value) == 0
    }

    /// `fields` confined to the slice: the scope field set to the caller's value.
    ///
    /// - Throws: `forbidden` when `fields` name another value (a write into another
    ///   caller's slice).
    public func confine(_ fields: [String: JSONValue]) throws(DataMediatorError) -> [String: JSONValue] {
        if let given = fields[field], given != .null, JSONValue.compare(given, value) != 0 {
            throw DataMediatorError(
                .forbidden,
                "'\(field)' is set from your token; you may not write an item with another '\(field)'."
            )
        }
        var confined = fields
        confined[field] = value
        return confined
    }
}
