import DataMediator

extension JSONValue {
    /// The text of a text column's value; nil for `NULL` and other kinds.
    var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The value of a whole-number column; nil for `NULL` and other kinds.
    var integerValue: Int64? {
        if case .integer(let whole) = self { return whole }
        return nil
    }
}
