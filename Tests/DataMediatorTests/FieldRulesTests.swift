import DataMediator
import Testing

/// The field rules name every bad field, and their one-line summary (an import's report)
/// says a shared problem, such as the list's fields, once.
@Suite struct FieldRulesTests {
    let rules = FieldRules(types: ["title": .string, "score": .integer], required: ["title"])

    @Test func everyBadFieldIsNamed() {
        do {
            try rules.check(["bar": .string("x"), "foo": .integer(1), "score": .string("high")])
            Issue.record("the item was accepted")
        } catch {
            #expect(error.fieldProblems.map(\.field) == ["bar", "foo", "score", "title"])
        }
    }

    /// A body of many made-up members is answered in a bounded problem: the first unknown
    /// fields named, the rest counted, the known fields' problems all there.
    /// A whole number past 64 bits (JSON allows it; it is read as a floating-point number)
    /// is told with the range a whole-number field holds; a fraction, as not whole.
    @Test func aWholeNumberPast64BitsIsToldTheRange() throws {
        let body = #"{"title": "t", "score": 9223372036854775808}"#
        guard case .object(let fields) = try JSONValue.parse(Array(body.utf8)) else {
            Issue.record("not an object")
            return
        }
        for (value, detail) in [
            (
                fields["score"] ?? .null,
                "must be a whole number from -9223372036854775808 to 9223372036854775807 (64 bits)"
            ),
            (.number(-1e30), "must be a whole number from -9223372036854775808 to 9223372036854775807 (64 bits)"),
            (.number(1.5), "must be a whole number"),
        ] {
            do {
                try rules.check(["title": .string("t"), "score": value])
                Issue.record("\(value) was accepted")
            } catch {
                #expect(error.fieldProblems.map(\.detail) == [detail], "\(value)")
            }
        }
    }

    @Test func unknownFieldsAreNamedUpToABound() {
        var fields: [String: JSONValue] = ["score": .string("high")]
        for index in 0..<10_000 { fields["x\(index)"] = .integer(1) }
        do {
            try rules.check(fields)
            Issue.record("the item was accepted")
        } catch {
            let named = error.fieldProblems.map(\.field)
            #expect(named.count == FieldRules.maximumProblems + 2, "\(named.count)")
            #expect(named.contains("score") && named.last == "title")
            #expect(error.message.hasSuffix("and \(10_000 - FieldRules.maximumProblems) more unknown fields."))
            #expect(error.message.utf8.count < 1_000)
        }
    }

    @Test func theSummarySaysASharedProblemOnce() {
        do {
            try rules.check(["bar": .string("x"), "foo": .integer(1), "score": .string("high")])
            Issue.record("the item was accepted")
        } catch {
            #expect(
                error.fieldProblems.summary
                    == "'bar', 'foo': each is not a field of the list; its fields are 'score', 'title'; "
                    + "'score' must be a whole number; 'title' is required"
            )
        }
    }

    /// U+0000 is refused wherever it hides (a store would cut the text there, or refuse it).
    @Test func aValueHoldingNULIsRefused() {
        let rules = FieldRules(types: ["title": .string, "meta": .json])
        for value: JSONValue in [
            .string("a\u{0}b"), .array([.string("\u{0}")]), .object(["k\u{0}": .integer(1)]),
            .object(["k": .string("\u{0}")]),
        ] {
            let field = value.objectValue == nil && value != .array([.string("\u{0}")]) ? "title" : "meta"
            do {
                try rules.check([field: value])
                Issue.record("\(value) was accepted")
            } catch {
                #expect(
                    error.fieldProblems == [FieldProblem(field: field, detail: "must not contain the character U+0000")]
                )
            }
        }
        #expect(throws: Never.self) {
            try rules.check(["title": .string("a\u{1}b"), "meta": .object(["k": .string("")])])
        }
        let parameter = ViewParameter(name: "who", field: "owner", type: .string, isRequired: false)
        #expect(throws: DataMediatorError.self) { try parameter.value(of: "ana\u{0}x") }
    }

    /// A whole number given for a `number` field is kept as a number, as pages show it.
    @Test func wholeNumbersOfNumberFieldsAreStoredAsNumbers() {
        let rules = FieldRules(types: ["price": .number, "count": .integer])
        let stored = rules.stored(["price": .integer(2), "count": .integer(2), "other": .integer(2)])
        #expect(stored == ["price": .number(2), "count": .integer(2), "other": .integer(2)])
    }
}
