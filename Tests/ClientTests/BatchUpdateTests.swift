import DataMediatorClient
import Testing

@Suite struct BatchUpdateTests {
    static func snapshot(_ sections: [(String, [String])], revs: [String: String] = [:]) -> ListSnapshot {
        ListSnapshot(
            list: "l",
            view: "v",
            version: 0,
            sections: sections.map { id, items in
                ListSection(
                    id: id,
                    title: id.uppercased(),
                    items: items.map { ListItem(id: $0, type: "t", rev: revs[$0] ?? "1", data: .object([:])) }
                )
            },
            nextCursor: nil,
            previousCursor: nil
        )
    }

    static func expectRoundTrip(_ old: ListSnapshot, _ new: ListSnapshot) throws -> BatchUpdate {
        let batch = BatchUpdate(from: old, to: new)
        #expect(try batch.applied(to: old, dataSource: new) == new.sections)
        return batch
    }

    @Test func anItemMovedWithinItsSectionIsOneMoveAndTheOthersStay() throws {
        let batch = try Self.expectRoundTrip(
            Self.snapshot([("a", ["1", "2", "3", "4"])]),
            Self.snapshot([("a", ["2", "3", "1", "4"])])
        )
        #expect(
            batch.movedItems == [
                ItemMove(id: "1", from: ItemPath(section: 0, item: 0), to: ItemPath(section: 0, item: 2))
            ]
        )
        #expect(batch.insertedItems.isEmpty && batch.deletedItems.isEmpty)
    }

    @Test func sectionsInsertedAndDeletedCarryTheirItemsAndMovesNeverLeaveADeletedSection() throws {
        let batch = try Self.expectRoundTrip(
            Self.snapshot([("a", ["1", "2"]), ("b", ["3", "4"]), ("c", ["5"])]),
            Self.snapshot([("a", ["1"]), ("n", ["2", "9"]), ("c", ["3", "5"])])
        )
        #expect(batch.deletedSections == [1] && batch.insertedSections == [1])
        #expect(batch.deletedSectionIDs == ["b"] && batch.insertedSectionIDs == ["n"])
        // 2 leaves a kept section for an inserted one: a delete; 3 leaves a deleted one: an insert.
        #expect(batch.deletedItems == [ItemPath(section: 0, item: 1)])
        #expect(batch.insertedItems == [ItemPath(section: 2, item: 0)])
        #expect(batch.movedItems.isEmpty)
        #expect(Set(batch.deletedItemIDs) == ["4"] && Set(batch.insertedItemIDs) == ["9"])
    }

    @Test func anItemThatChangesInPlaceIsReloadedAndOneThatAlsoMovesIsUpdated() throws {
        let batch = try Self.expectRoundTrip(
            Self.snapshot([("a", ["1", "2", "3"])]),
            Self.snapshot([("a", ["2", "1", "3"])], revs: ["1": "2", "3": "5"])
        )
        // One of 1 and 2 moves, the other stays; 3 stays and is reloaded.
        #expect(batch.movedItems.count == 1)
        #expect(batch.reloadedItems.contains(ItemPath(section: 0, item: 2)))
        #expect(Set(batch.updatedItemIDs) == ["1", "3"])
    }

    @Test func aWrongBatchIsRefusedAsUIKitWouldRefuseIt() {
        let old = Self.snapshot([("a", ["1", "2"])])
        let new = Self.snapshot([("a", ["1", "2", "3"])])
        #expect(throws: BatchUpdateError.self) { try BatchUpdate().applied(to: old, dataSource: new) }
    }

    @Test(arguments: 0..<300) func randomSnapshotsDiffIntoBatchesThatRebuildThem(seed: Int) throws {
        var random = Random(seed: UInt64(seed) + 1)
        func make() -> [(String, [String])] {
            var ids = Array(0..<random.below(30)).map { "i\($0)" }.filter { _ in random.below(4) > 0 }
            ids.shuffle(using: &random)
            var sections: [(String, [String])] = []
            let names = ["s0", "s1", "s2", "s3", "s4", "s5"].filter { _ in random.below(3) > 0 }
            for name in names.shuffled(using: &random).prefix(4) {
                let count = min(ids.count, random.below(9))
                if count > 0 { sections.append((name, Array(ids.prefix(count)))) }
                ids.removeFirst(count)
            }
            return sections
        }
        let revs = Dictionary(uniqueKeysWithValues: (0..<30).map { ("i\($0)", String(random.below(2))) })
        _ = try Self.expectRoundTrip(Self.snapshot(make()), Self.snapshot(make(), revs: revs))
    }
}

/// SplitMix64, so that the random cases are the same on every run.
struct Random: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func below(_ bound: Int) -> Int {
        bound <= 0 ? 0 : Int(next() % UInt64(bound))
    }
}
