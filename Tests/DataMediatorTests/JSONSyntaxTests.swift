import DataMediator
import Testing

/// RFC 8259's grammar: what Foundation's decoder also takes (a trailing comma, a leading
/// zero, `1.`) is found, with where; JSON text of every kind is not refused.
@Suite struct JSONSyntaxTests {
    @Test(arguments: [
        (#"{"a": 1,}"#, "a comma before '}'"),
        (#"[1, 2, ]"#, "a comma before ']'"),
        (#"{"a": 01}"#, "leading zero"),
        (#"{"a": -01.5}"#, "leading zero"),
        (#"{"a": 1.}"#, "decimal point"),
        (#"{"a": 1e}"#, "exponent"),
        (#"{"a": NaN}"#, "cannot start a value"),
        (#"{a: 1}"#, "member's name"),
        ("{\"a\": \"tab\tin\"}", "control character"),
        (#"{"a": "\x"}"#, "no escape"),
        (#"{"a": "\u12G4"}"#, "four hex digits"),
        (#"{"a": tru}"#, "not a value"),
        (#"{"a": 1} x"#, "more after"),
        (#"{"a": 1"#, "',' or '}'"),
        (#""open"#, "not closed"),
        ("", "ends where a value"),
    ])
    func departuresAreNamed(text: String, what: String) {
        let problem = JSONSyntax.problem(in: Array(text.utf8))
        #expect(problem?.contains(what) == true, "\(text): \(problem ?? "nil")")
        #expect(problem?.hasPrefix("at byte ") == true)
    }

    @Test(arguments: [
        #"{"data": {"title": "é \"q\" \\ \/ \b\f\n\r\t \u00e9", "n": -0.5e+10, "m": 0, "z": 1E-3}}"#,
        #" [true, false, null, [], {}, [[1]], {"a": {"b": [1, {"c": null}]}}] "#, #"12"#, #""text""#,
        "\t{\r\n\"a\" :\n1 }\n",
    ])
    func jsonTextIsTaken(text: String) {
        #expect(JSONSyntax.problem(in: Array(text.utf8)) == nil, "\(text)")
    }

    @Test func textNestedPastTheParsersLimitIsLeftToIt() {
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        #expect(JSONSyntax.problem(in: Array(deep.utf8)) == nil)
    }
}
