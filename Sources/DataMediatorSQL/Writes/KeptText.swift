import DataMediator

/// The rule that a `string` field's text is kept as written, which writes and imports
/// check on the row they stored (read back in the same statement), so that a refused one
/// stores nothing: for the fields over columns that may convert it
/// (``SQLListReader/numericTextFields``).
///
/// A SQLite column whose declared type has NUMERIC affinity (`DATETIME`, `DATE`) keeps
/// text that reads as a number as that number: `"007"` was stored, and shown, as `7`,
/// which a `PUT` of what a `GET` gave then refused. SQLite's own rule says which text it
/// converts, so the stored row tells, not a second reading of that rule here.
public enum KeptText {
    /// The problem of `field`, given as `given` (a `string` field's value) and stored as
    /// `stored`; nil when it was kept as text (or the value given was no text).
    public static func problem(field: String, given: JSONValue, stored: JSONValue) -> FieldProblem? {
        guard case .string = given else { return nil }
        switch stored {
        case .string, .null: return nil
        default:
            var written = JSONWriter()
            written.write(given)
            var kept = JSONWriter()
            kept.write(stored)
            return FieldProblem(
                field: field,
                detail: "its column keeps \(written.string) as \(kept.string) (a SQLite column whose type has "
                    + "NUMERIC affinity, such as DATETIME, keeps text that reads as a number as that number): "
                    + "write it in another form, or declare the column TEXT"
            )
        }
    }

    /// The refusal of a write whose `problems` are not empty.
    static func refusal(_ problems: [FieldProblem]) -> DataMediatorError? {
        problems.isEmpty
            ? nil
            : DataMediatorError(
                .invalidItem,
                "The item's text would not be kept as written; nothing was stored.",
                fieldProblems: problems
            )
    }
}

extension SQLItemWriter {
    /// `item`, the row a write read back, when every field of `written` over a column of
    /// NUMERIC affinity (``SQLListReader/numericTextFields``) it gave as text is text there
    /// still (``KeptText``); its refusal otherwise.
    func keptAsText(_ item: Item, written: [String], values: [String: JSONValue]) throws -> Item {
        guard !numericTextFields.isEmpty else { return item }
        let problems = written.filter(numericTextFields.contains).compactMap {
            KeptText.problem(field: $0, given: values[$0] ?? .null, stored: item[$0])
        }
        if let refusal = KeptText.refusal(problems) { throw refusal }
        return item
    }
}
