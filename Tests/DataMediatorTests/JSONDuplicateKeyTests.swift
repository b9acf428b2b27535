import DataMediator
import Testing

/// A member name given twice in one object is found, at any depth; the same name in two
/// objects, or a string value equal to a name, is not a repeat.
@Suite struct JSONDuplicateKeyTests {
    @Test(arguments: [
        (#"{"a": 1, "a": 2}"#, "a"),
        (#"{"data": {"title": "t", "x": [1, {"k": 1, "k": 2}]}}"#, "k"),
        (#"{"q\"uote": 1, "q\"uote": 2}"#, "q\"uote"),
        (#"{"a": {"b": 1}, "b": 2, "a": 3}"#, "a"),
        (#"{"reason": 1, "re\u0061son": 2}"#, "reason"),
    ])
    func aRepeatedNameIsFound(text: String, name: String) {
        #expect(JSONValue.duplicateKey(in: Array(text.utf8)) == name)
    }

    @Test(arguments: [
        #"{"a": 1, "b": {"a": 2}}"#, #"[{"a": 1}, {"a": 2}]"#, #"{"a": "a", "b": ["a", "a"]}"#, #"{"a\"": 1, "a": 2}"#,
        #"{}"#, #"[1, 2]"#,
    ])
    func namesOnceEachAreNotARepeat(text: String) {
        #expect(JSONValue.duplicateKey(in: Array(text.utf8)) == nil)
    }
}
