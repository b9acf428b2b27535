import DataMediator
import Testing

/// A scope claim names one caller as it is spelt: for an integer scope field, text is
/// taken in its one decimal spelling only, so the tokens of "07" and "7" never share a
/// slice; a number claim is taken as it is.
@Suite struct ScopeClaimTests {
    static let list = ListDefinition(
        name: "mine",
        title: "Mine",
        idField: "id",
        views: [],
        rules: FieldRules(types: ["owner": .integer]),
        scope: ListScope(field: "owner", claim: "sub")
    )

    @Test(arguments: [("7", 7), ("-3", -3), ("0", 0), ("9223372036854775807", .max)] as [(String, Int64)])
    func theDecimalSpellingNamesTheCaller(text: String, expected: Int64) throws {
        #expect(try Self.list.scopeValue(["sub": .string(text)]) == .integer(expected))
    }

    @Test(arguments: ["07", "+7", "-0", " 7", "7 ", "00"])
    func anotherSpellingIsRefused(text: String) {
        #expect {
            try Self.list.scopeValue(["sub": .string(text)])
        } throws: { error in
            (error as? DataMediatorError)?.code == .unauthorized
        }
    }

    @Test func aNumberClaimIsTakenAsItIs() throws {
        #expect(try Self.list.scopeValue(["sub": .integer(7)]) == .integer(7))
    }
}
