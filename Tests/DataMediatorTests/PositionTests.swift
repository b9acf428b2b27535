import DataMediator
import DataMediatorTesting
import Testing

/// A page's positions made together are each item's own position.
@Suite struct PositionTests {
    @Test(arguments: SampleList.views)
    func positionsOfItemsReadTogetherAreEachItemsPosition(view: View) {
        let read = SampleList.items()
        // Items of other layouts among them: fields in another order, one missing.
        let other = read.prefix(3).map { Item($0.fields) }
        var missing = read[3]
        missing = Item(missing.fields.filter { $0.key != view.sort.first?.field })
        let items = read + other + [missing] + read.prefix(2)
        #expect(view.positions(of: items) == items.map(view.position(of:)))
        #expect(view.positions(of: []).isEmpty)
    }
}
