/// A named equality filter a view takes from a request's query string (`?game=7`): one
/// view then serves a family of lists, one per value.
///
/// The store backs each set of parameters a request may give with an index on their fields
/// followed by the view's sort keys, so a page of a slice at any depth costs what its first
/// page costs.
public struct ViewParameter: Sendable, Hashable {
    /// The query parameter's name.
    public let name: String
    /// The field it filters on.
    public let field: String
    /// The field's type, which a value from the query string is converted to.
    public let type: FieldType
    /// Whether a request must give it.
    public let isRequired: Bool

    /// Creates a parameter.
    public init(name: String, field: String, type: FieldType, isRequired: Bool) {
        self.name = name
        self.field = field
        self.type = type
        self.isRequired = isRequired
    }

    /// The most parameters a view may declare (each set of them needs an index: eight).
    public static let maximumPerView = 3

    /// A query string's value as the field's type.
    ///
    /// Numbers are read as decimal text, as `limit` is: an integer is an optional `-` and
    /// digits (`07` is 7, as it is for `limit`), a number also takes a fraction and an
    /// exponent (`-0.5`, `1e3`). Signs `+` (a space in a query string unless encoded),
    /// spaces, hexadecimal, `nan` and `inf` do not convert. Slices and cursors are bound to
    /// the converted value, so `game=07` and `game=7` are one slice.
    ///
    /// - Throws: `badParameter` naming the parameter when the text does not convert or holds
    ///   U+0000.
    public func value(of text: String) throws(DataMediatorError) -> JSONValue {
        guard !text.holdsNUL else {
            throw DataMediatorError(.badParameter, "Parameter '\(name)' \(JSONValue.nulDetail).")
        }
        let value: JSONValue?
        switch type {
        case .string: value = .string(text)
        case .integer: value = FieldType.isDecimal(text, fraction: false) ? Int64(text).map { .integer($0) } : nil
        case .number:
            // A whole number is read as one, and shown as a `number` field shows it: no
            // double holds one past 2^53 (``FieldType/present(_:)``).
            if FieldType.isDecimal(text, fraction: false), let whole = Int64(text) {
                value = FieldType.number.present(.integer(whole))
                break
            }
            // A number too near 0 for a double (`1e-400`) reads as 0: out of range, as
            // `1e400` is, and as a write of it is (``JSONValue/outOfRangeDetail``). `-0` is
            // 0: a field holds no `-0` (a write stores 0), and the slice is the one whose
            // changes the writes of 0 log (a slice is bound to its values' spelling).
            let nonzero = text.prefix { $0 != "e" && $0 != "E" }.contains { $0 >= "1" && $0 <= "9" }
            value =
                FieldType.isDecimal(text, fraction: true)
                ? Double(text).flatMap { $0.isFinite && ($0 != 0 || !nonzero) ? .number($0 == 0 ? 0 : $0) : nil }
                : nil
        case .boolean: value = ["true": .bool(true), "false": .bool(false)][text]
        case .json: value = .string(text)
        }
        guard let value else {
            let form =
                switch type {
                case .integer: " (decimal digits, from -9223372036854775808 to 9223372036854775807)"
                case .number: " (decimal, as 1.5 or 2e3)"
                default: " ('true' or 'false')"
                }
            throw DataMediatorError(
                .badParameter,
                "Parameter '\(name)' must be \(type.article) \(type.rawValue)\(form); '\(text)' is not one."
            )
        }
        return value
    }
}

/// The field of a list that must equal a claim of the caller's token: every read and write
/// of every view of the list then sees only the caller's slice.
public struct ListScope: Sendable, Hashable {
    /// The field.
    public let field: String
    /// The claim whose value the field must equal (`sub`, say).
    public let claim: String

    /// Creates a scope.
    public init(field: String, claim: String) {
        self.field = field
        self.claim = claim
    }
}
