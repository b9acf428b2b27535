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

    /// The fields of a merge patch's result: `stored` (the item's writable fields) merged
    /// with `patch` (RFC 7396), the scope field kept at the caller's value when there is a
    /// scope.
    public static func merge(
        _ stored: [String: JSONValue],
        with patch: JSONValue,
        in scope: WriteScope?
    ) -> [String: JSONValue] {
        var merged = JSONValue.object(stored.filter { $0.value != .null }).merging(patch).objectValue ?? [:]
        if let scope { merged[scope.field] = scope.value }
        return merged
    }
}
