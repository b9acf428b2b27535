/// The declared type of a list's field: how a stored value becomes JSON.
public enum FieldType: String, Sendable, Hashable, CaseIterable {
    /// Text.
    case string
    /// A whole number.
    case integer
    /// Any number.
    case number
    /// `true` or `false` (stored as 1 or 0 in SQL).
    case boolean
    /// Any JSON value (stored as JSON text in SQL).
    case json

    /// The article a message puts before the type's name ("an integer", "a string").
    public var article: String { self == .integer ? "an" : "a" }

    /// The value as the API shows it: integers 0 and 1 of a boolean field become `false`
    /// and `true`, a whole number of a number field a number (`7.0`: a store may hand back
    /// `7` for what it keeps as 7.0, as SQLite's `RETURNING` does), JSON text of a json field
    /// becomes the value it encodes. Anything that does not convert is shown as stored.
    public func present(_ stored: JSONValue) -> JSONValue {
        switch (self, stored) {
        case (.boolean, .integer(let whole)): return .bool(whole != 0)
        case (.number, .integer(let whole)): return .number(Double(whole))
        case (.json, .string(let text)):
            return (try? JSONValue.parse(Array(text.utf8))) ?? stored
        default: return stored
        }
    }
}
