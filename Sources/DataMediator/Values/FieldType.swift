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
    /// becomes the value it encodes. Anything that does not convert is shown as stored: a
    /// whole number no double holds (past 2^53) stays the integer it is, so that it is shown,
    /// and a cursor holds it, as the column does (as a double, two of them were one value
    /// to a cursor, and a walk over them ended early: review 107 #2).
    public func present(_ stored: JSONValue) -> JSONValue {
        switch (self, stored) {
        case (.boolean, .integer(let whole)): return .bool(whole != 0)
        case (.number, .integer(let whole)):
            guard let real = Double(exactly: whole) else { return stored }
            return .number(real)
        case (.json, .string(let text)):
            return (try? JSONValue.parse(Array(text.utf8))) ?? stored
        default: return stored
        }
    }
}

extension FieldType {
    /// Whether `text` is `-`?digits, then (with `fraction`) `.digits` and `e`/`E`, an
    /// optional sign and digits: a JSON number's grammar, leading zeros allowed. How text
    /// from outside JSON (a query parameter, a CSV cell) is read as a number: no `+`, no
    /// spaces, no hexadecimal, no `nan` or `inf`.
    public static func isDecimal(_ text: String, fraction: Bool) -> Bool {
        var bytes = text.utf8[...]
        func digits() -> Bool {
            let count = bytes.prefix { (0x30...0x39).contains($0) }.count
            bytes = bytes.dropFirst(count)
            return count > 0
        }
        if bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        guard digits() else { return false }
        guard fraction else { return bytes.isEmpty }
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            guard digits() else { return false }
        }
        if bytes.first == UInt8(ascii: "e") || bytes.first == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if bytes.first == UInt8(ascii: "+") || bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
            guard digits() else { return false }
        }
        return bytes.isEmpty
    }
}
