import DataMediator
import DataMediatorSQL
import DataMediatorSQLite
import DataMediatorTesting
import Testing

/// How both SQL stores turn the rows of an around statement into an anchored window
/// (`SQLListReader.anchored`): rows as the statement reads them are taken as they came,
/// rows in any other order give the same window.
@Suite struct AnchoredRowsTests {
    @Test(arguments: SampleList.views.filter { $0.slice.isEmpty && $0.parameters.isEmpty })
    func rowsInAnyOrderGiveTheWindowAroundTheItem(view: View) throws {
        let fixture = try SQLiteFixture()
        let reader = try fixture.store.provider(for: SampleList.definition, source: SQLiteFixture.source).reader
        let ordered = SampleList.expectedOrder(SampleList.items(), view: view)
        try #require(ordered.count >= 6)
        for anchor in [0, 1, ordered.count / 2, ordered.count - 1] {
            let before = Array(ordered[max(0, anchor - 3)..<anchor].reversed())
            let from = Array(ordered[anchor..<min(ordered.count, anchor + 3)])
            let id = ordered[anchor]["id"].idString
            let expected = AnchoredWindow(before: before, from: from, version: 7)
            // As the statement reads them: the side before nearest first, then the item on.
            #expect(reader.anchored(before + from, id: id, in: view, version: 7) == expected)
            // In view order, reversed, and shuffled (another store, another plan).
            let rows = Array(before.reversed()) + from
            #expect(reader.anchored(rows, id: id, in: view, version: 7) == expected, "\(view.name) \(anchor)")
            #expect(reader.anchored(rows.reversed(), id: id, in: view, version: 7) == expected)
            var generator = SplitMix64(seed: UInt64(anchor))
            #expect(reader.anchored(rows.shuffled(using: &generator), id: id, in: view, version: 7) == expected)
            // Without the item there is no window.
            #expect(reader.anchored(rows.filter { $0["id"].idString != id }, id: id, in: view, version: 7) == nil)
        }
    }

    /// Two ids that Swift's `String ==` takes for one (the same text composed and
    /// decomposed: U+00E9 against `e` + U+0301) are two items to the store: the window is
    /// anchored on the one asked for (a probe's `around` page was centred on the other).
    @Test func canonicallyEquivalentIdsAreTwoItems() throws {
        let fixture = try SQLiteFixture()
        let reader = try fixture.store.provider(for: SampleList.definition, source: SQLiteFixture.source).reader
        let view = try #require(SampleList.views.first)
        let (composed, decomposed) = ("\u{E9}q", "e\u{301}q")
        try #require(composed == decomposed, "what the store must not rely on")
        var first = try #require(SampleList.items().first)
        var second = first
        first["id"] = .string(composed)
        second["id"] = .string(decomposed)
        let rows = SampleList.expectedOrder([first, second], view: view)
        for id in [composed, decomposed] {
            for order in [rows, rows.reversed()] {
                let window = try #require(reader.anchored(order, id: id, in: view, version: 1))
                #expect(window.from.first.map { Array($0["id"].idString.utf8) } == Array(id.utf8), "\(order)")
            }
            let found = try #require(rows.first { reader.isItem($0, id: id) })
            #expect(Array(found["id"].idString.utf8) == Array(id.utf8))
        }
    }
}
