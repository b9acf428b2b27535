import DataMediator
import DataMediatorSQL
import Testing

/// An imported record's integer id in text is taken in its one decimal spelling only, as a
/// write's id is: `+8` or `009` were stored as 8 and 9, ids the record does not name.
@Suite struct ImportRecordTests {
    static func id(_ text: String) throws -> JSONValue? {
        let record = ImportRecord(line: 1, fields: ["id": .string(text), "title": .string("t")])
        return try record.values(
            columns: ["id", "title"],
            idField: "id",
            idType: .integer,
            types: ["id": .integer, "title": .string],
            rules: FieldRules(types: ["title": .string])
        ).first
    }

    @Test func aWholeNumberInItsOwnSpellingIsTheID() throws {
        #expect(try Self.id("8") == .integer(8))
        #expect(try Self.id("-12") == .integer(-12))
    }

    @Test(arguments: ["+8", "009", "-0", " 8", "8 "])
    func anotherSpellingIsABadID(text: String) {
        #expect(throws: DataMediatorError.self, "\(text)") { try Self.id(text) }
    }
}
