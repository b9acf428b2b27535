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

    /// A number field's slice for a claim is the one the caller's writes log: their items
    /// hold the claim as a number (`5.0` for `5`, `0` for `-0`), so the token of `5` reads
    /// the changes of its own writes.
    @Test(arguments: [
        (JSONValue.integer(5), 5.0), (.number(5), 5), (.number(-0.0), 0), (.integer(0), 0), (.number(2.5), 2.5),
    ])
    func aNumberFieldsClaimIsTheSliceItsWritesLog(claim: JSONValue, stored: Double) throws {
        let (view, list) = Self.scopedByNumber()
        let asked = try list.view(named: "all", slice: SliceRequest(claims: ["team": claim]))
        let item = Item(["id": .string("n1"), "team": .number(stored)])
        let value = try list.scopeValue(["team": claim])
        let logged = Slice.slices(of: item, in: view, scope: (field: "team", value: value)).map(\.cursorBinding)
        #expect(logged.contains(asked.cursorBinding), "\(claim): \(logged) against \(asked.cursorBinding)")
    }

    /// A whole-number claim past what a double holds exactly is refused for a number field:
    /// 9007199254740993 and 9007199254740992 were one number, so one slice, and each
    /// caller read and wrote the other's items.
    @Test func aWholeClaimANumberFieldCannotHoldIsRefused() throws {
        let (_, list) = Self.scopedByNumber()
        let refused = #expect(throws: DataMediatorError.self) {
            _ = try list.view(named: "all", slice: SliceRequest(claims: ["team": .integer(9_007_199_254_740_993)]))
        }
        #expect(refused?.code == .unauthorized && refused?.message.contains("cannot hold exactly") == true)
        #expect(try list.scopeValue(["team": .integer(9_007_199_254_740_992)]) == .number(9_007_199_254_740_992))
    }

    /// A list scoped by the `number` field `team` (the claim `team`), and its one view.
    static func scopedByNumber() -> (View, ListDefinition) {
        let view = View(name: "all", sort: [SortKey("id")], idField: "id", cellType: .fixed("row"), fields: ["team"])
        let list = ListDefinition(
            name: "notes",
            title: "Notes",
            idField: "id",
            views: [view],
            rules: FieldRules(types: ["team": .number]),
            scope: ListScope(field: "team", claim: "team")
        )
        return (view, list)
    }
}
