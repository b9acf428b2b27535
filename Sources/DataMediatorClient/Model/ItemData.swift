/// A JSON value as an item's `data` holds it: the client's own, so that the kit needs
/// nothing of the server's targets.
///
/// Whole numbers that fit 64 bits decode as ``integer(_:)``, other numbers as
/// ``double(_:)``; objects keep their keys (their order is not significant).
public enum ItemData: Sendable, Hashable, Codable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A whole number that fits 64 bits.
    case integer(Int64)
    /// Any other number.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([ItemData])
    /// An object.
    case object([String: ItemData])

    /// Decodes any JSON value.
    ///
    /// Each kind is tried in turn and each miss throws (an error built with its coding
    /// path): strings, whole numbers and objects, what most of an item's data is, come first
    /// so that most values cost no miss; a whole number before a double, so it stays whole.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode([String: ItemData].self) {
            self = .object(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode([ItemData].self) {
            self = .array(value)
        } else {
            // A value that is none of them (an object too deep, say): the object's error.
            self = .object(try container.decode([String: ItemData].self))
        }
    }

    /// Encodes the value as JSON.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The member `key` of an object; nil for other values or a missing key.
    public subscript(key: String) -> ItemData? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The string, when the value is one.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }
}
