import DataMediator
import Testing

/// A view parameter's value from a query string converts to its field's type as decimal
/// text (leading zeros allowed, as `limit` allows them), and anything else is refused
/// naming the parameter and the form it takes.
@Suite struct ViewParameterTests {
    static let integer = ViewParameter(name: "game", field: "game", type: .integer, isRequired: true)
    static let number = ViewParameter(name: "price", field: "price", type: .number, isRequired: false)
    static let boolean = ViewParameter(name: "done", field: "done", type: .boolean, isRequired: false)

    @Test(
        arguments: [
            ("7", 7), ("07", 7), ("0", 0), ("-0", 0), ("-03", -3),
            ("9223372036854775807", .max), ("-9223372036854775808", .min),
        ] as [(String, Int64)]
    )
    func integersAreDecimalDigitsWithAnOptionalMinus(text: String, expected: Int64) throws {
        #expect(try Self.integer.value(of: text) == .integer(expected))
    }

    @Test(arguments: ["", "-", "+3", " 3", "3 ", "3.0", "1e3", "0x7", "٣", "9223372036854775808", "three"])
    func otherIntegerTextIsRefusedNamingTheParameterAndTheForm(text: String) {
        #expect {
            try Self.integer.value(of: text)
        } throws: { error in
            let error = error as? DataMediatorError
            return error?.code == .badParameter
                && error?.message.contains("'game' must be an integer (decimal digits") == true
                && error?.message.contains("'\(text)' is not one") == true
        }
    }

    @Test(arguments: [
        ("1.5", 1.5), ("-0.5", -0.5), ("2e3", 2000), ("2E-1", 0.2), ("007", 7), ("3", 3), ("0e-999", 0), ("0.000", 0),
    ])
    func numbersAreDecimalWithAFractionAndAnExponent(text: String, expected: Double) throws {
        #expect(try Self.number.value(of: text) == .number(expected))
    }

    /// `-0` is the slice of 0: the one whose changes a write of 0 logs (a write stores no
    /// `-0`), so `/changes` and `/events` of `?price=-0` are those of the items it pages.
    @Test(arguments: ["-0", "-0.0", "-0e0", "-0.000e5"])
    func negativeZeroIsTheSliceOfZero(text: String) throws {
        let view = View(
            name: "by_price",
            sort: [SortKey("id")],
            idField: "id",
            cellType: .fixed("row"),
            fields: ["price"],
            parameters: [Self.number]
        )
        let definition = ListDefinition(name: "goods", title: "Goods", idField: "id", views: [view])
        let asked = try definition.view(named: "by_price", slice: SliceRequest(parameters: ["price": [text]]))
        let item = Item(["id": .string("g1"), "price": .number(0)])
        let logged = Slice.slices(of: item, in: view, scope: nil).map(\.cursorBinding)
        #expect(logged.contains(asked.cursorBinding), "\(logged) against \(asked.cursorBinding)")
        guard case .number(let zero) = try Self.number.value(of: text) else {
            Issue.record("'\(text)' is no number")
            return
        }
        #expect(zero == 0 && zero.sign == .plus)
    }

    @Test(arguments: [".5", "1.", "1e", "+1", "0x1p3", "nan", "inf", "1e999", " 1", "1,5", "1e-400", "-2.5e-999"])
    func otherNumberTextIsRefused(text: String) {
        #expect(throws: DataMediatorError.self) { try Self.number.value(of: text) }
    }

    @Test func booleansAreTrueOrFalse() throws {
        #expect(try Self.boolean.value(of: "true") == .bool(true))
        #expect(try Self.boolean.value(of: "false") == .bool(false))
        for text in ["1", "TRUE", "yes", ""] {
            #expect(throws: DataMediatorError.self) { try Self.boolean.value(of: text) }
        }
    }
}
