import Crypto

/// The slices of a view: which field values select one, and the digest that binds cursors
/// and change records to it.
public enum Slice {
    /// A short digest of a slice's values (in field order), for bindings: equal values give
    /// equal digests. It is a plain hash, which likely values can be tried against, so a
    /// cursor carries it keyed by the cursor secret (``CursorSigner``).
    public static func digest(of values: [String: JSONValue]) -> String {
        var writer = JSONWriter()
        writer.write(.object(values))
        let hash = SHA256.hash(data: Array(writer.string.utf8))
        return Hex.string(Array(hash.prefix(12)))
    }

    /// Every slice of `view` that `item` is in, keyed by binding: the view itself, then for
    /// each set of the view's parameters (the required ones always among them) the slice
    /// of the item's values; `scope` (a field and value) narrows every one. A write records
    /// its changes in each slice of the old and of the new item, so a client of a slice
    /// replays exactly its slice.
    public static func slices(of item: Item, in view: View, scope: (field: String, value: JSONValue)?) -> [View] {
        if let scope, item[scope.field] != scope.value { return [] }
        return views(of: view, scope: scope) { item[$0] }
    }

    /// Every combination of `view`'s parameters a request can give (the required ones
    /// always), each with the values `value` gives its fields, narrowed by `scope`.
    static func views(
        of view: View,
        scope: (field: String, value: JSONValue)?,
        value: (String) -> JSONValue
    ) -> [View] {
        let required = view.parameters.filter(\.isRequired)
        let optional = view.parameters.filter { !$0.isRequired }
        var views: [View] = []
        for mask in 0..<(1 << optional.count) {
            let chosen = required + optional.indices.filter { mask & (1 << $0) != 0 }.map { optional[$0] }
            var values: [String: JSONValue] = [:]
            for parameter in chosen { values[parameter.field] = value(parameter.field) }
            // No query string names a null value: such a slice is never read.
            guard !values.values.contains(.null) else { continue }
            if let scope { values[scope.field] = scope.value }
            views.append(view.sliced(values))
        }
        return views
    }
}
