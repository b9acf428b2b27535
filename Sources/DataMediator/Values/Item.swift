/// An item of a source: its fields by name, as a provider read them (a row, a JSON object).
///
/// The values sit in an array in the order of a ``ItemLayout`` that every item of one
/// read shares, so reading a row makes no dictionary: a page's items cost one array each.
public struct Item: Sendable, Hashable {
    /// The field names and their positions.
    public private(set) var layout: ItemLayout
    /// The values, in the layout's order.
    public private(set) var values: [JSONValue]

    /// Creates an item from values in `layout`'s order; missing trailing values are `null`.
    public init(layout: ItemLayout, values: [JSONValue]) {
        self.layout = layout
        self.values =
            values.count >= layout.names.count
            ? values : values + Array(repeating: .null, count: layout.names.count - values.count)
    }

    /// Creates an item from its fields.
    public init(_ fields: [String: JSONValue]) {
        let names = fields.keys.sorted()
        self.init(layout: ItemLayout(names), values: names.map { fields[$0] ?? .null })
    }

    /// The fields by name.
    public var fields: [String: JSONValue] {
        Dictionary(uniqueKeysWithValues: zip(layout.names, values))
    }

    /// The value of a field; `null` when the item has no such field.
    public subscript(field: String) -> JSONValue {
        get {
            guard let index = layout.index(of: field) else { return .null }
            return values[index]
        }
        set {
            if let index = layout.index(of: field) {
                values[index] = newValue
            } else {
                layout = ItemLayout(layout.names + [field])
                values.append(newValue)
            }
        }
    }

    /// The value at `index` of the layout (from ``ItemLayout/index(of:)``); `null` for nil.
    public func value(at index: Int?) -> JSONValue {
        guard let index, index < values.count else { return .null }
        return values[index]
    }

    /// The item as a JSON object of its fields, in layout order (how stores keep a copy).
    public func objectJSON() -> [UInt8] {
        var writer = JSONWriter(capacity: 32 + values.count * 24)
        writer.raw("{")
        for (index, name) in layout.names.enumerated() {
            writer.separator(index)
            writer.key(name)
            writer.write(values[index])
        }
        writer.raw("}")
        return writer.bytes
    }

    /// An item of `layout` from a JSON object such as ``objectJSON()`` writes; fields the
    /// object lacks are `null`, members the layout lacks are dropped. Nil when `bytes` is
    /// not a JSON object.
    ///
    /// `types` (one per field of `layout`, nil for a field read as it is) gives back what
    /// JSON text loses: the parser reads `7.0` as the whole number 7, so a whole number of a
    /// `number` field is made a number again, as the item was before it was written out.
    public init?(objectJSON bytes: [UInt8], layout: ItemLayout, types: [FieldType?] = []) {
        guard case .object(let members)? = try? JSONValue.parse(bytes) else { return nil }
        self.init(
            layout: layout,
            values: layout.names.enumerated().map { index, name in
                let value = members[name] ?? .null
                guard index < types.count, types[index] == .number else { return value }
                return FieldType.number.present(value)
            }
        )
    }

    /// Items are equal when they hold the same fields with the same values.
    public static func == (lhs: Item, rhs: Item) -> Bool {
        lhs.fields == rhs.fields
    }

    /// Hashes the fields.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(fields)
    }
}

/// The field names of items read together, and where each one's value sits.
public final class ItemLayout: Sendable {
    /// The names, in value order.
    public let names: [String]
    private let positions: [String: Int]

    /// Creates a layout; a repeated name keeps its first position.
    public init(_ names: [String]) {
        self.names = names
        var positions: [String: Int] = [:]
        for (index, name) in names.enumerated() where positions[name] == nil { positions[name] = index }
        self.positions = positions
    }

    /// Where the value of `field` sits, or nil when the layout has no such field.
    public func index(of field: String) -> Int? {
        positions[field]
    }
}
