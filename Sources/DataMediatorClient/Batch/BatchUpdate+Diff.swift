extension BatchUpdate {
    /// The batch that turns `old` into `new`, found by diffing them by stable ids.
    ///
    /// Sections that are in both (same id and title) and keep their order stay; the others
    /// are deleted and inserted. Items in a section that stays in both snapshots stay in
    /// place when they belong to the longest run of items that keeps its order; every other
    /// item in both moves. So the batch has as few moves as the order allows.
    public init(from old: ListSnapshot, to new: ListSnapshot) {
        self.init()
        let oldSections = Dictionary(old.sections.enumerated().map { (ExactID($1.id), $0) }) { first, _ in first }
        // Sections: those in both with the same title, in the longest run that keeps their order.
        let commonSections = new.sections.compactMap { section -> Int? in
            guard let index = oldSections[ExactID(section.id)], old.sections[index].title == section.title else {
                return nil
            }
            return index
        }
        let keptSections = Set(Self.longestIncreasingRun(commonSections).map { ExactID(old.sections[$0].id) })
        for (index, section) in old.sections.enumerated() where !keptSections.contains(ExactID(section.id)) {
            deletedSections.append(index)
            deletedSectionIDs.append(section.id)
        }
        for (index, section) in new.sections.enumerated() where !keptSections.contains(ExactID(section.id)) {
            insertedSections.append(index)
            insertedSectionIDs.append(section.id)
        }

        // Items: those in both that stay in the same kept section and in the longest run in order.
        var oldOrder: [ExactID: Int] = [:]
        for (offset, item) in old.items.enumerated() { oldOrder[ExactID(item.id)] = offset }
        var candidates: [Int] = []
        for section in new.sections where keptSections.contains(ExactID(section.id)) {
            for item in section.items {
                guard let before = old.path(of: item.id), old.sections[before.section].id.isExactly(section.id),
                    let offset = oldOrder[ExactID(item.id)]
                else { continue }
                candidates.append(offset)
            }
        }
        let oldItems = old.items
        let staying = Set(Self.longestIncreasingRun(candidates).map { ExactID(oldItems[$0].id) })

        for (sectionIndex, section) in new.sections.enumerated() {
            let sectionKept = keptSections.contains(ExactID(section.id))
            for (itemIndex, item) in section.items.enumerated() {
                let after = ItemPath(section: sectionIndex, item: itemIndex)
                guard let before = old.path(of: item.id), let previous = old.item(at: before) else {
                    insertedItemIDs.append(item.id)
                    if sectionKept { insertedItems.append(after) }
                    continue
                }
                let changed = previous != item
                if changed { updatedItemIDs.append(item.id) }
                if staying.contains(ExactID(item.id)) {
                    if changed { reloadedItems.append(before) }
                    continue
                }
                movedItemIDs.append(item.id)
                let cameFromKept = keptSections.contains(ExactID(old.sections[before.section].id))
                switch (cameFromKept, sectionKept) {
                case (true, true): movedItems.append(ItemMove(id: item.id, from: before, to: after))
                case (true, false): deletedItems.append(before)
                case (false, true): insertedItems.append(after)
                case (false, false): break
                }
            }
        }
        for (sectionIndex, section) in old.sections.enumerated() {
            for (itemIndex, item) in section.items.enumerated() where new.path(of: item.id) == nil {
                deletedItemIDs.append(item.id)
                if keptSections.contains(ExactID(section.id)) {
                    deletedItems.append(ItemPath(section: sectionIndex, item: itemIndex))
                }
            }
        }
        deletedItems.sort()
        insertedItems.sort()
        reloadedItems.sort()
    }

    /// The elements of one longest strictly increasing subsequence of `values`
    /// (patience sorting, O(n log n)).
    static func longestIncreasingRun(_ values: [Int]) -> [Int] {
        var tails: [Int] = []  // indices into values: the smallest tail of each run length
        var previous = [Int](repeating: -1, count: values.count)
        for (index, value) in values.enumerated() {
            var low = 0
            var high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[index] = tails[low - 1] }
            if low == tails.count { tails.append(index) } else { tails[low] = index }
        }
        var run: [Int] = []
        var index = tails.last ?? -1
        while index >= 0 {
            run.append(values[index])
            index = previous[index]
        }
        return run.reversed()
    }
}
