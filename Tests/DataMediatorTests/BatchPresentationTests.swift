import DataMediator
import Testing

/// The batch forms used by the page path give exactly what the one-item forms give.
@Suite struct BatchPresentationTests {
    static let view = View(
        name: "by_day",
        sort: [SortKey("at", .descending)],
        idField: "id",
        section: SectionRule(field: "at", grouping: .day),
        cellType: .field("kind", types: ["a", "b"], fallback: "other"),
        fields: ["title", "at", "kind", "missing"]
    )

    static let items: [Item] = {
        let layout = ItemLayout(["id", "rev", "at", "kind", "title"])
        var items = [
            Item(
                layout: layout,
                values: [.integer(3), .integer(7), .string("2026-11-19T10:00:00Z"), .string("a"), .string("x \"q\"")]
            ),
            Item(layout: layout, values: [.integer(2), .null, .string("2026-11-19T09:00:00Z"), .string("zzz"), .null]),
            Item(
                layout: layout,
                values: [.string("é1"), .integer(1), .string("día-11-18T00:00Z"), .string("b"), .string("ü")]
            ),
            Item(layout: layout, values: [.integer(0), .integer(1), .integer(20_261_118), .null, .string("t")]),
        ]
        // An item of another layout (fields in another order, one missing) among them.
        items.append(Item(["id": .integer(9), "title": .string("other layout"), "at": .string("2026-11-17")]))
        return items
    }()

    @Test func cellsOfAPageAreEachItemsCell() {
        let presenter = FieldPresenter(view: Self.view, idField: "id", revisionField: "rev")
        #expect(presenter.cells(for: Self.items) == Self.items.map(presenter.cell(for:)))
        #expect(presenter.cells(for: []).isEmpty)
        let cell = presenter.cell(for: Self.items[0])
        #expect(cell.id == "3" && cell.type == "a" && cell.rev == "7")
        #expect(
            String(decoding: cell.dataJSON, as: UTF8.self)
                == #"{"at":"2026-11-19T10:00:00Z","kind":"a","missing":null,"title":"x \"q\""}"#
        )
        // No revision value: the content's hash; a type outside the declared ones: the fallback.
        let second = presenter.cell(for: Self.items[1])
        #expect(second.type == "other" && second.rev.count == 16)
        // A view exposing no fields still writes an object.
        let bare = FieldPresenter(
            view: View(name: "v", sort: [], idField: "id", cellType: .fixed("c"), fields: []),
            idField: "id"
        )
        #expect(bare.cells(for: Self.items).allSatisfy { $0.dataJSON == Array("{}".utf8) && $0.type == "c" })
    }

    @Test func sectionIDsOfAPageAreEachItemsSectionID() {
        #expect(Self.view.sectionIDs(of: Self.items) == Self.items.map(Self.view.sectionID(of:)))
        #expect(Self.view.sectionIDs(of: Self.items).prefix(3) == ["2026-11-19", "2026-11-19", "día-11-18T"])
    }

    @Test func dayKeysCountUnicodeScalarsAsSQLiteDoes() {
        let rule = SectionRule(field: "at", grouping: .day)
        #expect(rule.key(for: .string("2026-11-19T10:00:00Z")) == .string("2026-11-19"))
        #expect(rule.key(for: .string("2026-11")) == .string("2026-11"))
        #expect(rule.key(for: .string("ñandú-ábc-déf")) == .string("ñandú-ábc-"))
        #expect(rule.key(for: .string("abcdefghi😀xyz")) == .string("abcdefghi😀"))
        #expect(rule.key(for: .integer(5)) == .integer(5))
    }

    @Test func hexOfRawBytesIsHexOfTheSequence() {
        let bytes: [UInt8] = [0, 1, 0x7F, 0x80, 0xAB, 0xFF]
        #expect(bytes.withUnsafeBytes { Hex.string($0) } == Hex.string(bytes))
        #expect(Hex.string(bytes) == "00017f80abff")
        #expect(Hex.id(0x0123_4567_89AB_CDEF, 1) == "0123456789abcdef0000000000000001")
    }
}
