extension String {
    /// Whether the text holds the character U+0000, which neither SQL store can keep
    /// (SQLite cuts the text there, PostgreSQL refuses it), so no stored value holds it.
    public var holdsNUL: Bool { utf8.contains(0) }
}

extension JSONValue {
    /// Whether a string anywhere in the value (an object's keys too) holds U+0000.
    public var holdsNUL: Bool {
        switch self {
        case .string(let text): return text.holdsNUL
        case .array(let elements): return elements.contains(where: \.holdsNUL)
        case .object(let members): return members.contains { $0.key.holdsNUL || $0.value.holdsNUL }
        case .null, .bool, .integer, .number: return false
        }
    }

    /// The detail of a field problem for a value that holds U+0000.
    static let nulDetail = "must not contain the character U+0000"
}
