import DataMediator

/// Values bound against a column as its database compares them, where binding them as
/// they are would compare them otherwise than the core does.
extension KeysetSQL {
    /// A position's value as it is bound against `field`'s column: a whole double as the
    /// integer it is against a PostgreSQL integer column (``integerColumns``). Compared
    /// with a double, PostgreSQL casts the column to double, and the integers past 2^53
    /// that one double stands for were all equal to it (review 107 #2); SQLite compares an
    /// integer and a double by their exact values.
    public func bound(_ value: JSONValue, against field: String) -> JSONValue {
        guard case .number(let real) = value, integerColumns.contains(field), let whole = Int64(exactly: real) else {
            return value
        }
        return .integer(whole)
    }

    /// A text that bounds a range of `field`'s column (`<`, `<=`, `>`, `>=`: a filter's
    /// value, a section's prefix) as it is bound: against a SQLite column of NUMERIC
    /// affinity (``numericTextColumns``), a text that reads as a number is compared as that
    /// number, and every text is greater than every number (review 110 #1: a year's
    /// sections, `'2026' <= ts < '2027'` over `DATETIME` texts, counted nothing). Followed
    /// by U+0001, it reads as no number and bounds the same texts: no text such a column
    /// keeps is the number's text (SQLite keeps that as the number), nor holds U+0000.
    /// Only texts SQLite reads as numbers are changed (``readsAsNumber(_:)``).
    public func textBound(_ value: JSONValue, against field: String) -> JSONValue {
        guard case .string(let text) = value, numericTextColumns.contains(field), Self.readsAsNumber(text) else {
            return value
        }
        return .string(text + "\u{1}")
    }

    /// Whether SQLite reads `text` as a number where a column's NUMERIC affinity applies:
    /// white space around it, a sign (`+` too), digits with a point anywhere among or
    /// after them (`.5`, `2026.`), and an exponent (review 114 #4: `+5`, ` 2026` were
    /// missed). A subset of SQLite's own rule (which takes no hexadecimal here either), so
    /// that a text changed is one no such column keeps as text.
    static func readsAsNumber(_ text: String) -> Bool {
        let space: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D]
        var bytes = text.utf8.drop { space.contains($0) }
        while let last = bytes.last, space.contains(last) { bytes = bytes.dropLast() }
        func digits() -> Int {
            let count = bytes.prefix { (0x30...0x39).contains($0) }.count
            bytes = bytes.dropFirst(count)
            return count
        }
        if bytes.first == UInt8(ascii: "+") || bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        var whole = digits()
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            whole += digits()
        }
        guard whole > 0 else { return false }
        if bytes.first == UInt8(ascii: "e") || bytes.first == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if bytes.first == UInt8(ascii: "+") || bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
            guard digits() > 0 else { return false }
        }
        return bytes.isEmpty
    }
}
