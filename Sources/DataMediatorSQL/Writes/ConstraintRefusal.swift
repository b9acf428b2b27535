import DataMediator

/// A write that the table itself refused (a unique index, a check, a foreign key, `NOT
/// NULL` on a column the list does not require, a trigger that aborts, a value its column
/// cannot hold), as the answer a client gets: `conflict` (409) when another row holds a
/// value a unique constraint keeps to one row, `invalidItem` (422) otherwise, whose
/// `errors` names the field when the database tells it (`data`, the whole of the item's
/// fields, when it does not). Each store tells its errors apart; the write's transaction
/// was rolled back, so nothing of it is stored.
///
/// The detail is the database's message, which names the constraint or the column and
/// never the value (a unique value of another user's item is not told to a client whose
/// slice does not hold it).
public enum ConstraintRefusal {
    /// Another row holds a value that `detail`'s unique constraint keeps to one row.
    public static func unique(_ detail: String) -> DataMediatorError {
        DataMediatorError(.conflict, "Another item holds a value the table keeps unique (\(detail)).")
    }

    /// Another constraint of the table, named by `detail`, refuses the item; `field` is the
    /// column it names, when the database tells it.
    public static func other(_ detail: String, field: String?) -> DataMediatorError {
        refusal(
            "A constraint of the table refuses the item (\(detail)).",
            field: field,
            saying: "a constraint of the table refuses it (\(detail))"
        )
    }

    /// The table cannot hold a value of the item: `detail` is the database's reason (out
    /// of its column's range, too long for it, not of its type); `field` as in
    /// ``other(_:field:)``.
    public static func value(_ detail: String, field: String?) -> DataMediatorError {
        refusal(
            "A value does not fit its column in the store: \(detail).",
            field: field,
            saying: "does not fit its column in the store: \(detail)"
        )
    }

    /// The item's values are too long together for one entry of an index of the store
    /// (`limit` says how long an entry may be); `field` as in ``other(_:field:)``.
    public static func tooLongForAnIndex(limit: String, field: String?) -> DataMediatorError {
        refusal(
            "The item's values are too long together for an index of the store (\(limit)): shorten the text "
                + "of the fields its views sort or filter by.",
            field: field,
            saying: "too long, with the item's other values its views sort or filter by, for an index of the store"
        )
    }

    /// `error` with its field named, when it is a refusal that names only `data` and its
    /// message quotes a value that exactly one of `values` holds (PostgreSQL names the type
    /// and the value a cast refused, never the column: `invalid input value for enum
    /// status: "gone"`), or names the domain (`rules`, ``ColumnRule/domain(_:base:)``) of
    /// exactly one of their fields (`value for domain positive violates check constraint
    /// ...`); `error` as it is otherwise.
    public static func naming(
        _ error: any Error,
        among values: [String: JSONValue],
        rules: [String: ColumnRule] = [:]
    ) -> any Error {
        guard let refusal = error as? DataMediatorError, refusal.code == .invalidItem,
            refusal.fieldProblems.map(\.field) == ["data"]
        else { return error }
        let domains = values.keys.filter { field in
            guard case .domain(let name, _)? = rules[field] else { return false }
            return refusal.message.contains("value for domain \(name) violates")
        }
        guard let field = field(quotedIn: refusal.message, among: values) ?? (domains.count == 1 ? domains[0] : nil)
        else { return error }
        return DataMediatorError(
            .invalidItem,
            refusal.message,
            fieldProblems: refusal.fieldProblems.map { FieldProblem(field: field, detail: $0.detail) }
        )
    }

    /// The one field of `values` whose value (a string, a number, a boolean, or one of an
    /// array's elements, as text) `message` quotes in double quotes; nil when none or several do.
    public static func field(quotedIn message: String, among values: [String: JSONValue]) -> String? {
        func quoted(_ value: JSONValue) -> Bool {
            switch value {
            case .string, .integer, .number, .bool: return message.contains("\"\(value.idString)\"")
            case .array(let elements): return elements.contains(where: quoted)
            case .null, .object: return false
            }
        }
        let fields = values.filter { quoted($0.value) }.map(\.key)
        return fields.count == 1 ? fields[0] : nil
    }

    /// A 422 whose detail is `message` and whose one field problem names `field` (`data`
    /// when unknown) with `detail`: the reason once, said of the field.
    private static func refusal(_ message: String, field: String?, saying detail: String) -> DataMediatorError {
        DataMediatorError(.invalidItem, message, fieldProblems: [FieldProblem(field: field ?? "data", detail: detail)])
    }
}
