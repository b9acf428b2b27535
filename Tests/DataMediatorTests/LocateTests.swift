import DataMediator
import DataMediatorTesting
import Testing

/// `indexForItem`: where an item stands, and a cursor whose page starts with it.
@Suite struct LocateTests {
    let adapter = ListAdapter(
        definition: SampleList.definition,
        provider: ArrayDataProvider(items: SampleList.items(), idField: "id", views: SampleList.views),
        signer: CursorSigner(secret: SampleList.secret)
    )

    @Test(
        "every item's index path and position equal the walk's",
        arguments: ["by_group", "by_day", "flat", "positive"]
    )
    func indexPathsMatchTheWalk(view: String) async throws {
        let check = try await SampleList.walk(adapter, view: view, limit: 4)
        var position = 0
        for (sectionIndex, section) in check.sections.enumerated() {
            for itemIndex in 0..<section.count {
                let item = check.items[position]
                let location = try await adapter.locate(id: item.id, view: view)
                #expect(location.item == item)
                #expect(location.sectionIndex == sectionIndex && location.itemIndex == itemIndex)
                #expect(location.position == position)
                #expect(location.sectionID == section.id && location.sectionTitle == section.title)
                position += 1
            }
        }
    }

    @Test func theLocatedCursorStartsAPageWithTheItem() async throws {
        let check = try await SampleList.walk(adapter, view: "by_group", limit: 4)
        for position in [0, 1, 5, check.items.count - 1] {
            let item = check.items[position]
            let location = try await adapter.locate(id: item.id, view: "by_group")
            let page = try await adapter.page(view: "by_group", limit: "3", cursor: location.cursor)
            #expect(page.items.first == item)
            #expect(page.items.map(\.id) == check.items[position..<min(position + 3, check.items.count)].map(\.id))
            #expect(page.sections.first?.continues == (location.itemIndex > 0))
        }
    }

    @Test func unknownOrFilteredOutItemsAreNotFound() async throws {
        for (id, view) in [("nope", "by_group"), ("", "flat"), ("item-00", "positive")] {
            let error = await #expect(throws: DataMediatorError.self) {
                _ = try await adapter.locate(id: id, view: view)
            }
            #expect(error?.code == .unknownItem)
        }
    }
}
