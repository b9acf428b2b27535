import DataMediator
import DataMediatorTesting
import Testing

/// Ids are compared byte for byte, as the stores compare them: text Swift's `String ==`
/// takes for one (`é` as U+00E9 and as `e` + U+0301) is two items. A list over a query
/// (kept in an ``ArrayDataProvider``) dropped the second as a repeat, and found either
/// one for both ids.
@Suite struct ExactIDTests {
    static let ids = ("\u{E9}q", "e\u{301}q")

    @Test func canonicallyEquivalentIdsAreTwoItemsOfAKeptList() async throws {
        let (composed, decomposed) = Self.ids
        try #require(composed == decomposed, "what a provider must not rely on")
        var items = SampleList.items()
        var first = try #require(items.first)
        var second = first
        first["id"] = .string(composed)
        second["id"] = .string(decomposed)
        items += [first, second]
        let provider = ArrayDataProvider(items: items, idField: "id", views: SampleList.views)
        let adapter = ListAdapter(
            definition: SampleList.definition,
            provider: provider,
            signer: CursorSigner(secret: SampleList.secret)
        )
        let view = try SampleList.definition.view(named: "flat")
        let counts = try await provider.sectionCounts(of: view)
        #expect(counts.entries.map(\.count).reduce(0, +) == items.count, "both kept")
        for id in [composed, decomposed] {
            let location = try #require(try await provider.locate(id: id, in: view))
            #expect(Array(location.item["id"].idString.utf8) == Array(id.utf8))
            let page = try await adapter.page(view: "flat", limit: "3", cursor: nil, around: id)
            let shown = page.items.map { Array($0.id.utf8) }
            #expect(shown.count == 3)
            // At (limit - 1) / 2, or nearer the top when fewer items precede it.
            #expect(shown.firstIndex(of: Array(id.utf8)) == min(1, location.position))
        }
    }

    /// Section ids too: two groups whose names differ only in how `é` is spelled are two
    /// sections of a page and of the counts, as the stores have them (a run of "equal" ids was one).
    @Test func canonicallyEquivalentSectionIdsAreTwoSections() async throws {
        let (composed, decomposed) = Self.ids
        let items = SampleList.items(count: 6).enumerated().map { index, item in
            var item = item
            item["group"] = .string(index % 2 == 0 ? composed : decomposed)
            return item
        }
        let provider = ArrayDataProvider(items: items, idField: "id", views: SampleList.views)
        let adapter = ListAdapter(
            definition: SampleList.definition,
            provider: provider,
            signer: CursorSigner(secret: SampleList.secret)
        )
        // The counts (`/sections`) agree with the pages.
        let counts = try await provider.sectionCounts(of: try SampleList.definition.view(named: "by_group"))
        #expect(counts.entries.map(\.count) == [3, 3])
        let page = try await adapter.page(view: "by_group", limit: "10", cursor: nil)
        let sections = page.sections.map { Array($0.id.utf8) }
        #expect(Set(sections) == [Array(composed.utf8), Array(decomposed.utf8)])
        #expect(sections.count == 2)
    }

    /// A composite's ids are its child's name, `/` and the child's id, taken apart by bytes:
    /// a child id that starts with a combining mark makes `/` and the mark one character,
    /// so a composite id that named it was not found (by characters it did not start with
    /// `name/`), and the child's id lost its mark.
    @Test func aChildIdThatStartsWithACombiningMarkIsFound() async throws {
        let signer = CursorSigner(secret: SampleList.secret)
        let items = SampleList.items(count: 3).enumerated().map { index, item in
            var item = item
            item["id"] = .string(["\u{301}x", "x", "\u{301}"][index])
            return item
        }
        let child = ListAdapter(
            definition: SampleList.definition,
            provider: ArrayDataProvider(items: items, idField: "id", views: SampleList.views),
            signer: signer
        )
        let screen = ListAdapter.composite(
            name: "screen",
            title: "Screen",
            children: [
                CompositeChild(name: "all", content: .list(child, view: try SampleList.definition.view(named: "flat")))
            ],
            signer: signer
        )
        let walk = try await SampleList.walk(screen, view: nil, limit: 2)
        #expect(walk.violations == [])
        #expect(walk.items.count == 3)
        for (position, cell) in walk.items.enumerated() {
            let location = try await screen.locate(id: cell.id, view: nil)
            #expect(location.position == position && location.item.id.utf8.elementsEqual(cell.id.utf8), "\(cell.id)")
        }
        let error = await #expect(throws: DataMediatorError.self) {
            _ = try await screen.locate(id: "all\u{301}/x", view: nil)
        }
        #expect(error?.code == .unknownItem)
    }
}
