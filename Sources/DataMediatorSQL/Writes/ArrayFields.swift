import DataMediator

/// The rule of a field whose column is an array (PostgreSQL's `text[]`, `bigint[]`, ...),
/// shown as a JSON array: a written value is a JSON array of strings, numbers, booleans and
/// nulls, or null. Checked before the statement, so that the refusal names the field and
/// says what it must be (the database's own error names neither).
public enum ArrayFields {
    /// The refusal of the first of `values` (by field name) whose column is one of
    /// `columns` and whose value breaks the rule.
    public static func check(_ values: [String: JSONValue], columns: Set<String>) throws(DataMediatorError) {
        guard !columns.isEmpty else { return }
        for (field, value) in values.sorted(by: { $0.key < $1.key }) where columns.contains(field) {
            if let problem = problem(of: value) {
                throw DataMediatorError(
                    .invalidItem,
                    "The field '\(field)' \(problem).",
                    fieldProblems: [FieldProblem(field: field, detail: problem)]
                )
            }
        }
    }

    private static func problem(of value: JSONValue) -> String? {
        switch value {
        case .null: return nil
        case .array(let elements):
            let nested = elements.contains {
                switch $0 {
                case .array, .object: return true
                default: return false
                }
            }
            guard nested else { return nil }
            return "must hold strings, numbers, booleans or nulls (its column is an array of one dimension)"
        default: return "must be a JSON array or null (its column is an array)"
        }
    }
}
