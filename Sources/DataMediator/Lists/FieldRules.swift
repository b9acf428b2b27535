/// What an item written to a list must look like: the declared fields and their types,
/// and which of them are required.
public struct FieldRules: Sendable, Hashable {
    /// The declared type of each writable field.
    public let types: [String: FieldType]
    /// Fields that must be present and not `null`.
    public let required: [String]
    /// Fields a view sorts or sections by, whose text is at most ``maximumKeyBytes``: a
    /// page's cursor carries them, and must stay one the server takes back.
    public let keyFields: Set<String>
    /// The fields each view's cursor carries besides the id (its sort keys), one set a view,
    /// whose text together is at most ``maximumCursorKeyBytes``: of this list's views, and
    /// of every other list's over the same table (an item written here is paged there too).
    public let cursorKeys: [[String]]

    /// The most UTF-8 bytes of text in a key field or an id.
    public static let maximumKeyBytes = 1024

    /// The most UTF-8 bytes of text a view's sort keys hold together besides the id (itself
    /// at most ``maximumKeyBytes``): a cursor carries them all, and must stay under
    /// ``CursorSigner/maximumTokenLength`` however many keys a view sorts by.
    public static let maximumCursorKeyBytes = 7_168

    /// Creates field rules; every field of `cursorKeys` is a key field too.
    public init(
        types: [String: FieldType] = [:],
        required: [String] = [],
        keyFields: Set<String> = [],
        cursorKeys: [[String]] = []
    ) {
        self.types = types
        self.required = required
        self.keyFields = keyFields.union(cursorKeys.joined())
        var seen = Set<[String]>()
        self.cursorKeys = cursorKeys.filter { $0.count > 1 && seen.insert($0).inserted }
    }

    /// These rules with the cursor keys of other lists' views over the same table as well.
    public func sharing(cursorKeys others: [[String]]) -> FieldRules {
        FieldRules(types: types, required: required, keyFields: keyFields, cursorKeys: cursorKeys + others)
    }

    /// Why `id` cannot be an item's id, as a field problem's detail; nil when it can.
    public static func idProblem(_ id: String) -> String? {
        if id.isEmpty { return "must not be empty" }
        if id.holdsNUL { return JSONValue.nulDetail }
        if id.utf8.count > maximumKeyBytes { return keyLengthDetail }
        if PathSegment.isDotSegment(id) { return "must not be '.' or '..', which no URL path can name" }
        return nil
    }

    /// The detail of a key field's (or an id's) text that is too long.
    static let keyLengthDetail =
        "must be at most \(maximumKeyBytes) bytes of UTF-8: views sort by it, and a page's cursor carries it"

    /// The most unknown fields one refusal names (the rest are counted).
    public static let maximumProblems = 20

    /// Checks an item's fields, naming every field that breaks a rule (unknown ones up to
    /// ``maximumProblems``); with `only`, the values of those fields alone (a patch's: the
    /// others are stored as they are, whatever another program put there), and every
    /// required field's presence.
    ///
    /// - Throws: `invalidItem` with one ``FieldProblem`` per bad field: an unknown field,
    ///   a value of the wrong type or holding U+0000, text longer than ``maximumKeyBytes`` in
    ///   a key field, or a required field missing or `null`.
    public func check(_ fields: [String: JSONValue], only: Set<String>? = nil) throws(DataMediatorError) {
        var problems: [FieldProblem] = []
        var unknown = 0
        for name in fields.keys.sorted() where only?.contains(name) ?? true {
            let value = fields[name] ?? .null
            guard let type = types[name] else {
                // Named once each, up to a bound: a body of a million made-up members would
                // otherwise be answered with a problem many times its size.
                unknown += 1
                if unknown <= Self.maximumProblems {
                    let known = types.keys.sorted().map { "'\($0)'" }.joined(separator: ", ")
                    problems.append(
                        FieldProblem(field: name, detail: "is not a field of the list; its fields are \(known)")
                    )
                }
                continue
            }
            if value != .null, !type.accepts(value) {
                problems.append(FieldProblem(field: name, detail: Self.typeDetail(type, value)))
            } else if value.holdsNUL {
                problems.append(FieldProblem(field: name, detail: JSONValue.nulDetail))
            } else if keyFields.contains(name), case .string(let text) = value, text.utf8.count > Self.maximumKeyBytes {
                problems.append(FieldProblem(field: name, detail: Self.keyLengthDetail))
            }
        }
        for name in required where (fields[name] ?? .null) == .null {
            problems.append(FieldProblem(field: name, detail: "is required"))
        }
        if problems.isEmpty { problems = cursorKeyProblems(fields, only: only) }
        guard problems.isEmpty else {
            let names = problems.map { "'\($0.field)'" }.joined(separator: ", ")
            let more =
                unknown > Self.maximumProblems ? " and \(unknown - Self.maximumProblems) more unknown fields" : ""
            throw DataMediatorError(
                .invalidItem,
                "The item breaks the list's field rules: \(names)\(more).",
                fieldProblems: problems
            )
        }
    }
}

extension FieldRules {
    /// A problem for each view whose sort keys' text in `fields` adds up to more than
    /// ``maximumCursorKeyBytes`` (with `only`, of the views that sort by one of those
    /// fields), naming its longest field and the others with it.
    func cursorKeyProblems(_ fields: [String: JSONValue], only: Set<String>?) -> [FieldProblem] {
        var problems: [FieldProblem] = []
        for keys in cursorKeys where only.map({ !$0.isDisjoint(with: keys) }) ?? true {
            let lengths = keys.map { name -> Int in
                if case .string(let text)? = fields[name] { return text.utf8.count }
                return 0
            }
            guard lengths.reduce(0, +) > Self.maximumCursorKeyBytes,
                let longest = zip(keys, lengths).max(by: { $0.1 < $1.1 })?.0,
                !problems.contains(where: { $0.field == longest })
            else { continue }
            let together = keys.map { "'\($0)'" }.joined(separator: ", ")
            problems.append(
                FieldProblem(
                    field: longest,
                    detail: "makes \(together) hold more than \(Self.maximumCursorKeyBytes) bytes of UTF-8 together: "
                        + "a view sorts by them all, and a page's cursor carries them"
                )
            )
        }
        return problems
    }

    /// Why `value` does not fit a field of `type`: its type, and for a whole number past
    /// 64 bits (read as a floating-point number) the range a whole-number field holds.
    static func typeDetail(_ type: FieldType, _ value: JSONValue) -> String {
        if type == .integer, case .number(let number) = value, number.isFinite, abs(number) >= 0x1p63 {
            return "must be a whole number from \(Int64.min) to \(Int64.max) (64 bits)"
        }
        return "must be \(type.description)"
    }

    /// The fields as a store keeps them: a whole number given for a `number` field is a
    /// number, so a write's answer and its change show it as every page does (`2.0`), but
    /// for one no double holds (``FieldType/present(_:)``).
    public func stored(_ fields: [String: JSONValue]) -> [String: JSONValue] {
        var stored = fields
        for (name, value) in fields where types[name] == .number {
            stored[name] = FieldType.number.present(value)
        }
        return stored
    }
}

extension FieldType {
    /// Whether a (non-null) value can be stored in a field of this type.
    public func accepts(_ value: JSONValue) -> Bool {
        switch (self, value) {
        case (.string, .string), (.integer, .integer), (.number, .integer), (.number, .number), (.boolean, .bool):
            return true
        case (.json, _):
            return true
        default:
            return false
        }
    }

    /// The type as a phrase, e.g. `a whole number`.
    public var description: String {
        switch self {
        case .string: return "a string"
        case .integer: return "a whole number"
        case .number: return "a number"
        case .boolean: return "true or false"
        case .json: return "any JSON value"
        }
    }
}
