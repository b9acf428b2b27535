import Foundation

/// A JSON value: what an item's fields, sort keys and section keys are made of.
///
/// Numbers keep their kind: an `integer` stays an integer through a cursor and back,
/// so keyset comparisons against the store stay exact.
public enum JSONValue: Sendable, Hashable {
    /// JSON `null`, and a missing or SQL `NULL` field.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A whole number.
    case integer(Int64)
    /// A number with a fraction or exponent.
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object; encoded with its keys sorted, so equal objects encode to equal bytes.
    case object([String: JSONValue])
}

extension JSONValue {
    /// The value as an item or section id: strings as they are, numbers in decimal.
    ///
    /// `null` gives the empty string; arrays and objects give their JSON text.
    public var idString: String {
        switch self {
        case .null: return ""
        case .bool(let flag): return flag ? "true" : "false"
        case .integer(let whole): return String(whole)
        case .number(let real): return real.description
        case .string(let text): return text
        case .array, .object:
            var writer = JSONWriter()
            writer.write(self)
            return writer.string
        }
    }

    /// The members, if this is an object.
    public var objectValue: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }
}

extension JSONValue {
    /// Whether two values are the same: strings by their UTF-8 bytes, as the stores compare
    /// them (Swift's own `==` takes "é" and "e" with a combining accent as one string; a
    /// store keeps them apart, so a sort key or an id that differs only so must too). NaN
    /// is NaN, as PostgreSQL orders it (a `real` or `numeric` column may hold it): a sort
    /// key's position must equal itself.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let left), .bool(let right)): return left == right
        case (.integer(let left), .integer(let right)): return left == right
        case (.number(let left), .number(let right)): return left == right || (left.isNaN && right.isNaN)
        case (.string(let left), .string(let right)): return left.utf8.elementsEqual(right.utf8)
        case (.array(let left), .array(let right)): return left == right
        case (.object(let left), .object(let right)): return left == right
        default: return false
        }
    }
}

extension JSONValue: Comparable {
    /// Orders values the way SQLite orders them: `null` first, then numbers (booleans count
    /// as 0 and 1, integers and reals compared by value; NaN, which only a PostgreSQL column
    /// holds, after every other number, as PostgreSQL orders it), then strings by their
    /// UTF-8 bytes, then arrays and objects by their JSON text.
    ///
    /// Stores and the in-memory provider must agree on this order, because a cursor taken
    /// from one answer is compared against the next.
    public static func < (lhs: JSONValue, rhs: JSONValue) -> Bool {
        compare(lhs, rhs) < 0
    }

    /// Three-way comparison in the order described at `<`: negative, zero or positive.
    public static func compare(_ lhs: JSONValue, _ rhs: JSONValue) -> Int {
        let (lhsRank, rhsRank) = (lhs.rank, rhs.rank)
        if lhsRank != rhsRank { return lhsRank < rhsRank ? -1 : 1 }
        switch (lhs, rhs) {
        case (.null, .null):
            return 0
        case (.string(let left), .string(let right)):
            if left.utf8.elementsEqual(right.utf8) { return 0 }
            return left.utf8.lexicographicallyPrecedes(right.utf8) ? -1 : 1
        case (.integer(let left), .integer(let right)):
            return left == right ? 0 : (left < right ? -1 : 1)
        case (.integer(let whole), .number(let real)):
            return compare(whole, real)
        case (.number(let real), .integer(let whole)):
            return -compare(whole, real)
        default:
            if let left = lhs.numeric, let right = rhs.numeric {
                if left.isNaN || right.isNaN { return left.isNaN == right.isNaN ? 0 : (left.isNaN ? 1 : -1) }
                return left == right ? 0 : (left < right ? -1 : 1)
            }
            let (left, right) = (lhs.idString, rhs.idString)
            if left.utf8.elementsEqual(right.utf8) { return 0 }
            return left.utf8.lexicographicallyPrecedes(right.utf8) ? -1 : 1
        }
    }

    /// An integer against a double by their exact values, as SQLite and PostgreSQL compare
    /// them: through a double, integers past 2^53 that one double stands for were equal, and
    /// a walk over them left the database's order (review 107 #2).
    private static func compare(_ whole: Int64, _ real: Double) -> Int {
        if real.isNaN { return -1 }
        // 2^63 is the first double past every Int64 (and -2^63 the smallest Int64).
        if real >= 9_223_372_036_854_775_808.0 { return -1 }
        if real < -9_223_372_036_854_775_808.0 { return 1 }
        let truncated = real.rounded(.towardZero)
        let part = Int64(truncated)
        if whole != part { return whole < part ? -1 : 1 }
        return real == truncated ? 0 : (real > truncated ? -1 : 1)
    }

    private var rank: Int {
        switch self {
        case .null: return 0
        case .bool, .integer, .number: return 1
        case .string: return 2
        case .array, .object: return 3
        }
    }

    private var numeric: Double? {
        switch self {
        case .bool(let flag): return flag ? 1 : 0
        case .integer(let whole): return Double(whole)
        case .number(let real): return real
        default: return nil
        }
    }
}

extension JSONValue {
    /// What a write's or an import's refusal says of a field whose number a 64-bit float
    /// cannot hold (`1e400`, `1e-400`): JSON, as RFC 8259 bounds no number, but no value
    /// the service can store.
    public static let outOfRangeDetail =
        "holds a number out of range (a 64-bit float's: at most about 1.8e308 either way, "
        + "and none nearer 0 than about 4.9e-324 but 0)"
}

extension JSONValue: Codable {
    /// Decodes any JSON value; whole numbers that fit in 64 bits become `integer`.
    ///
    /// A decoder cannot say what a value is, so each kind is tried in turn and each miss
    /// throws (an error built with its coding path): the kinds most values are come first,
    /// strings, whole numbers and objects (an item's `data`), so most values cost no miss.
    /// A whole number is tried before a double so that it stays whole.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let text = try? container.decode(String.self) {
            self = .string(text)
        } else if let whole = try? container.decode(Int64.self),
            // The decoder reads a number too near 0 for a double (`1e-400`) as the whole
            // number 0: it is out of a double's range, as `1e400` is, not 0.
            whole != 0 || (try? container.decode(Double.self)) != nil
        {
            self = .integer(whole)
        } else if let members = try? container.decode([String: JSONValue].self) {
            self = .object(members)
        } else if let real = try? container.decode(Double.self) {
            self = .number(real)
        } else if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else if let elements = try? container.decode([JSONValue].self) {
            self = .array(elements)
        } else {
            // A value that is none of them (an object too deep, say): the object's error.
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Encodes the value as the JSON it stands for.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let flag): try container.encode(flag)
        case .integer(let whole): try container.encode(whole)
        case .number(let real): try container.encode(real)
        case .string(let text): try container.encode(text)
        case .array(let elements): try container.encode(elements)
        case .object(let members): try container.encode(members)
        }
    }
}

extension JSONValue {
    /// How deeply a request body may nest arrays and objects: enough for any item, and a
    /// bound on the recursion that decoding, storing and writing a value take.
    public static let maximumDepth = 32

    /// Parses JSON text.
    ///
    /// - Throws: ``TooDeep`` when arrays and objects nest deeper than `maximumDepth` (when
    ///   given), before anything is decoded; the decoder's error when `bytes` are not JSON.
    public static func parse(_ bytes: [UInt8], maximumDepth: Int? = nil) throws -> JSONValue {
        if let maximumDepth, let depth = nesting(of: bytes, above: maximumDepth) {
            throw TooDeep(depth: depth, limit: maximumDepth)
        }
        return try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
    }

    /// JSON text that nests deeper than the parser takes.
    public struct TooDeep: Error, Sendable, Equatable {
        /// How deep the text nests, as far as it was read (at least `limit` + 1).
        public let depth: Int
        /// The deepest nesting taken.
        public let limit: Int
    }

    /// The nesting of `bytes` once it goes above `limit` (brackets outside strings counted),
    /// else nil. Malformed text is left to the decoder.
    static func nesting(of bytes: [UInt8], above limit: Int) -> Int? {
        var depth = 0
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth > limit { return depth }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
        return nil
    }
}
