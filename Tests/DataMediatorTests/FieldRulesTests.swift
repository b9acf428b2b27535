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
}
