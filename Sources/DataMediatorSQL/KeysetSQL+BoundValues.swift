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
    /// Only texts of a JSON number's form are changed, which SQLite reads as numbers too.
    public func textBound(_ value: JSONValue, against field: String) -> JSONValue {
        guard case .string(let text) = value, numericTextColumns.contains(field),
            FieldType.isDecimal(text, fraction: true)
        else { return value }
        return .string(text + "\u{1}")
    }
}
