import DataMediatorTesting
import Testing

@testable import DataMediator

/// `ArrayDataProvider.replacing` (what a write to an ``InMemoryDataProvider`` makes its next
/// snapshot with) orders, slices and sections exactly as a provider sorted from scratch.
@Suite struct ArrayReplacingTests {
    /// Every order but empty ones (a slice whose last item left is kept, empty).
    static func filled(_ provider: ArrayDataProvider) -> [String: ArrayDataProvider.Ordering] {
        provider.orderings.filter { !$0.value.items.isEmpty }
    }

    @Test(arguments: [nil, "group"] as [String?])
    func writesOneAtATimeOrderAsASortFromScratch(scopeField: String?) {
        let views = SampleList.views
        var items = Dictionary(uniqueKeysWithValues: SampleList.items().map { ($0["id"].idString, $0) })
        var provider = ArrayDataProvider(
            items: Array(items.values),
            idField: "id",
            views: views,
            scopeField: scopeField
        )
        var random = SplitMix64(seed: 11)
        let groups: [JSONValue] = [.string("alpha"), .string("beta"), .string("zeta"), .string("new"), .null]
        for step in 1...240 {
            let roll = random.next() % 3
            let id: String
            var item: Item?
            if roll == 0 || items.isEmpty {
                id = "added-\(step)"
                item = SampleList.items(count: 1 + Int(random.next() % 57)).last
                item?["id"] = .string(id)
            } else {
                id = items.keys.sorted()[Int(random.next() % UInt64(items.count))]
                if roll == 1 {
                    // Moved: its sort keys, its section, its slice and whether the filter keeps it.
                    item = items[id]
                    item?["group"] = groups[Int(random.next() % UInt64(groups.count))]
                    item?["score"] = random.next() % 4 == 0 ? .null : .integer(Int64(random.next() % 40) - 20)
                    item?["created"] = .string("2026-11-0\(1 + random.next() % 9)T1\(random.next() % 10):00:00Z")
                    item?["kind"] = .string(["big", "small", "odd"][Int(random.next() % 3)])
                }
            }
            let old = items[id]
            items[id] = item
            provider = provider.replacing(
                old,
                with: item,
                id: id,
                views: views,
                scopeField: scopeField,
                version: Int64(step)
            )
            let sorted = ArrayDataProvider(
                items: Array(items.values),
                idField: "id",
                views: views,
                scopeField: scopeField,
                version: Int64(step)
            )
            // (Compared apart: a failure names the step, not two whole providers.)
            let same = Self.filled(provider) == Self.filled(sorted)
            #expect(same, "step \(step): \(old == nil ? "added" : item == nil ? "removed" : "moved") \(id)")
        }
    }
}
