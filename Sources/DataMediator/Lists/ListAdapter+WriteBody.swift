/// How a write's body is read: its `id` and `data` members, and no others.
extension ListAdapter {
    /// The id and fields of a write body; only `id` (when allowed) and `data` may appear.
    /// When the body's shape is wrong but `data` is an object, the problems of `data` under
    /// `rules` are named too (a whole item's rules; nil for a patch), so one answer names
    /// every bad field.
    static func fields(
        of body: JSONValue,
        allowingID: Bool,
        rules: FieldRules? = nil
    ) throws(DataMediatorError) -> (String?, [String: JSONValue]) {
        guard case .object(let members) = body else {
            throw DataMediatorError(
                .invalidItem,
                "The body must be a JSON object with 'data'.",
                fieldProblems: [FieldProblem(field: "body", detail: "must be a JSON object")]
            )
        }
        var problems: [FieldProblem] = []
        for name in members.keys.sorted() where name != "data" && !(allowingID && name == "id") {
            problems.append(
                FieldProblem(
                    field: name,
                    detail: "is not allowed here; the body holds \(allowingID ? "'id' and " : "")'data'"
                )
            )
        }
        var id: String?
        switch members["id"] {
        case nil, .null?: break
        case .string(let text)? where !text.isEmpty:
            if let problem = FieldRules.idProblem(text) {
                problems.append(FieldProblem(field: "id", detail: problem))
            } else {
                id = text
            }
        case .integer(let whole)?: id = String(whole)
        default:
            if allowingID {
                problems.append(FieldProblem(field: "id", detail: "must be a non-empty string or a whole number"))
            }
        }
        guard case .object(let fields)? = members["data"] else {
            problems.append(FieldProblem(field: "data", detail: "is required and must be a JSON object"))
            throw DataMediatorError(.invalidItem, "The body must hold 'data', a JSON object.", fieldProblems: problems)
        }
        guard problems.isEmpty else {
            do throws(DataMediatorError) {
                try rules?.check(fields)
            } catch {
                problems += error.fieldProblems
            }
            let names = problems.map { "'\($0.field)'" }.joined(separator: ", ")
            throw DataMediatorError(
                .invalidItem,
                "The body is not a write of an item: \(names).",
                fieldProblems: problems
            )
        }
        return (id, fields)
    }
}
