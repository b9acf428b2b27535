import DataMediator
import Foundation

/// What a column of the store holds that its field's declared type does not say, checked
/// before a write's statement so that the refusal (`invalidItem`, 422) names the field
/// and says what it must be: the database's own error names neither (PostgreSQL's
/// "smallint out of range", "value too long for type character varying(10)", "cannot call
/// json_array_elements_text on a scalar").
public enum ColumnRule: Sendable, Hashable {
    /// An array (PostgreSQL's `text[]`, `bigint[]`, ...), shown as a JSON array: a value
    /// is a JSON array of strings, numbers, booleans and nulls (or of equally long arrays of
    /// them: two dimensions), or null; each element keeps the rule of the element type when
    /// it has one (`varchar(3)[]`, `integer[]`).
    indirect case array(of: ColumnRule?)
    /// Whole numbers of a column narrower than 64 bits (`smallint`, `integer`), named.
    case wholeNumbers(ClosedRange<Int64>, type: String)
    /// Text of at most this many characters (`varchar(n)`, `char(n)`: blanks past them are
    /// dropped, as PostgreSQL drops them), the type named.
    case characters(Int, type: String)
    /// Numbers less than 10^`digits` in size once rounded to `scale` digits after the point,
    /// as the column rounds them (`numeric(p, s)`: p - s digits before the point, s after),
    /// the type named.
    case below(digits: Int, scale: Int, type: String)
    /// Numbers a 32-bit float holds (PostgreSQL's `real`): one past its range (`1e39`), or
    /// one nearer 0 than its smallest but not 0 (`1e-50`), is refused by the database as
    /// "value out of range", which names no field.
    case real32(type: String)
    /// A uuid in its one spelling (``UUIDText``): PostgreSQL reads capitals, braces or no
    /// hyphens as the same uuid and stores it in small letters, so a value written in
    /// another spelling would read back changed, and a scope's claim so spelled would
    /// write into the slice of another caller (whose claim is the small-letter spelling).
    case uuid
    /// A value of a domain (PostgreSQL's `CREATE DOMAIN ... CHECK (...)`), by the name its
    /// refusals give it, with the rule of its base type: the domain's checks are the
    /// database's to test, and a refusal that names the domain names this field
    /// (``ConstraintRefusal/naming(_:among:rules:)``).
    indirect case domain(String, base: ColumnRule?)

    /// The refusal of `values` (by field name) whose columns have a rule in `rules` that
    /// they break, naming each such field (a message that names one says why).
    public static func check(_ values: [String: JSONValue], rules: [String: ColumnRule]) throws(DataMediatorError) {
        guard !rules.isEmpty else { return }
        var problems: [FieldProblem] = []
        for (field, value) in values.sorted(by: { $0.key < $1.key }) {
            if let problem = rules[field]?.problem(of: value) {
                problems.append(FieldProblem(field: field, detail: problem))
            }
        }
        guard let first = problems.first else { return }
        let message =
            problems.count == 1
            ? "The field '\(first.field)' \(first.detail)."
            : "The item's values do not fit their columns: \(problems.map { "'\($0.field)'" }.joined(separator: ", "))."
        throw DataMediatorError(.invalidItem, message, fieldProblems: problems)
    }

    /// The elements of an array column's value with their places (`2`, or `1, 0` in an
    /// array of two dimensions), nil when it is neither: PostgreSQL's arrays are
    /// rectangular (rows all as long, none empty), and one of two dimensions another program
    /// wrote reads as such a JSON array, so it is written back as one.
    static func placed(_ elements: [JSONValue]) -> [(place: String, element: JSONValue)]? {
        func isContainer(_ value: JSONValue) -> Bool {
            switch value {
            case .array, .object: true
            default: false
            }
        }
        guard elements.contains(where: isContainer) else {
            return elements.enumerated().map { (String($0.offset), $0.element) }
        }
        var placed: [(place: String, element: JSONValue)] = []
        var width: Int?
        for (row, value) in elements.enumerated() {
            guard case .array(let cells) = value, !cells.isEmpty, cells.count == width ?? cells.count,
                !cells.contains(where: isContainer)
            else { return nil }
            width = cells.count
            placed += cells.enumerated().map { ("\(row), \($0.offset)", $0.element) }
        }
        return placed
    }

    /// Why `value` breaks the rule, nil when it does not.
    func problem(of value: JSONValue) -> String? {
        switch (self, value) {
        case (_, .null): return nil
        case (.domain(_, let base), _): return base?.problem(of: value)
        case (.array(let rule), .array(let elements)):
            guard let placed = Self.placed(elements) else {
                return "must hold strings, numbers, booleans or nulls, or arrays of them all as long and not empty "
                    + "(its column is an array, of one dimension or two)"
            }
            guard let rule else { return nil }
            for (place, element) in placed {
                if let problem = rule.problem(of: element) {
                    return "has an element (at index \(place)) that \(problem)"
                }
            }
            return nil
        case (.array, _): return "must be a JSON array or null (its column is an array)"
        case (.wholeNumbers(let range, let type), .integer(let whole)):
            guard !range.contains(whole) else { return nil }
            return "must be from \(range.lowerBound) to \(range.upperBound) (its column is \(type))"
        case (.below(let digits, _, let type), .integer(let whole)):
            return Self.size(abs(Decimal(whole)) >= Self.power(digits), below: digits, type: type)
        case (.below(let digits, let scale, let type), .number(let real)):
            // The shortest decimal of the double, as the store writes it (``JSONValue``'s
            // text), rounded half away from zero as PostgreSQL rounds a numeric; a double
            // past what a Decimal holds (1e-130, 1e300) is compared as it is.
            guard var exact = Decimal(string: JSONValue.number(real).idString) else {
                let bound = (0..<max(0, digits)).reduce(1.0) { value, _ in value * 10 }
                return Self.size(abs(real) >= bound, below: digits, type: type)
            }
            var rounded = Decimal()
            NSDecimalRound(&rounded, &exact, scale, .plain)
            return Self.size(abs(rounded) >= Self.power(digits), below: digits, type: type)
        // A whole number is within a 32-bit float's range (2^63 is about 9.2e18).
        case (.real32(let type), .number(let real)):
            let narrowed = Float(real)
            guard narrowed.isInfinite || (narrowed == 0 && real != 0) else { return nil }
            return "must be a number a 32-bit float holds: at most about 3.4e38 either way, and none nearer 0 "
                + "than about 1.4e-45 but 0 (its column is \(type))"
        case (.uuid, .string(let text)):
            guard !UUIDText.isCanonical(text) else { return nil }
            return "must be a uuid in small letters with hyphens (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)"
        case (.characters(let most, let type), .string(let text)):
            var kept = Substring(text)
            while kept.last == " " { kept.removeLast() }
            guard kept.unicodeScalars.count > most else { return nil }
            return "must be at most \(most) characters (its column is \(type))"
        default: return nil
        }
    }

    /// 10^`digits`.
    private static func power(_ digits: Int) -> Decimal {
        (0..<max(0, digits)).reduce(Decimal(1)) { value, _ in value * 10 }
    }

    private static func size(_ exceeds: Bool, below digits: Int, type: String) -> String? {
        guard exceeds else { return nil }
        return "must be less than 1e\(digits) in size (its column is \(type))"
    }
}
