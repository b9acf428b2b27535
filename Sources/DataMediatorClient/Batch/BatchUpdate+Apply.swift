extension BatchUpdate {
    /// The sections a list view shows after performing this batch on `old`, the way
    /// `performBatchUpdates` does: deletes, moves' sources and reloads against `old`;
    /// inserts and moves' destinations at their final paths, the items that stay filling the
    /// other places in their order; then ``updatedItemIDs`` reconfigured.
    ///
    /// Like UIKit, it reads from the data source (`new`) only what a view reads from it: the
    /// number of items of each section after the batch, inserted sections, the cells of
    /// inserted and reloaded paths, and reconfigured items by id. Everything else comes
    /// from `old` and the batch, so `batch.applied(to: old, dataSource: new) == new.sections`
    /// proves the batch right.
    ///
    /// - Throws: ``BatchUpdateError`` where UIKit would raise: a path out of range, a path
    ///   listed twice, an item deleted and moved, a move from a deleted section, or a
    ///   section whose item count does not add up.
    public func applied(to old: ListSnapshot, dataSource new: ListSnapshot) throws(BatchUpdateError) -> [ListSection] {
        let deleted = Set(deletedSections)
        let inserted = Set(insertedSections)
        guard deleted.count == deletedSections.count, deleted.allSatisfy({ old.sections.indices.contains($0) }),
            inserted.count == insertedSections.count, inserted.allSatisfy({ new.sections.indices.contains($0) })
        else { throw BatchUpdateError("a section index is out of range or listed twice") }

        // Against the old snapshot: what leaves each section that stays.
        var leaving: Set<ItemPath> = []
        for path in deletedItems + movedItems.map(\.from) {
            guard old.item(at: path) != nil, !deleted.contains(path.section), leaving.insert(path).inserted else {
                throw BatchUpdateError("item \(path) is deleted or moved twice, out of range or in a deleted section")
            }
        }
        var sections: [ListSection] = []
        for reloaded in reloadedItems where leaving.contains(reloaded) || old.item(at: reloaded) == nil {
            throw BatchUpdateError("item \(reloaded) is reloaded and deleted or moved, or out of range")
        }
        let reloaded = Set(reloadedItems)
        for (index, section) in old.sections.enumerated() where !deleted.contains(index) {
            var items: [ListItem] = []
            for (row, item) in section.items.enumerated() {
                let path = ItemPath(section: index, item: row)
                if leaving.contains(path) { continue }
                if reloaded.contains(path) {
                    guard let fresh = new.item(id: item.id) else {
                        throw BatchUpdateError("reloaded item \(item.id) is not in the data source")
                    }
                    items.append(fresh)
                } else {
                    items.append(item)
                }
            }
            sections.append(ListSection(id: section.id, title: section.title, items: items))
        }

        // Against the new snapshot: sections inserted, then items placed at their final paths.
        guard sections.count + inserted.count == new.sections.count else {
            throw BatchUpdateError(
                "\(sections.count) sections stay and \(inserted.count) are inserted, the data source has \(new.sections.count)"
            )
        }
        var staying = sections[...]
        var result: [ListSection] = []
        for index in new.sections.indices {
            if inserted.contains(index) {
                result.append(new.sections[index])
            } else if let section = staying.popFirst() {
                result.append(section)
            }
        }
        var placed: [ItemPath: ListItem] = [:]
        for path in insertedItems {
            guard !inserted.contains(path.section), let item = new.item(at: path), placed[path] == nil else {
                throw BatchUpdateError("inserted item \(path) is out of range, listed twice or in an inserted section")
            }
            placed[path] = item
        }
        for move in movedItems {
            guard let item = old.item(at: move.from), !inserted.contains(move.to.section),
                new.sections.indices.contains(move.to.section), placed[move.to] == nil
            else {
                throw BatchUpdateError("move \(move.from) -> \(move.to) is out of range or into an inserted section")
            }
            placed[move.to] = item
        }
        for index in result.indices where !inserted.contains(index) {
            let count = new.sections[index].items.count
            var remaining = result[index].items[...]
            var items: [ListItem] = []
            for row in 0..<count {
                if let item = placed.removeValue(forKey: ItemPath(section: index, item: row)) {
                    items.append(item)
                } else if let item = remaining.popFirst() {
                    items.append(item)
                } else {
                    throw BatchUpdateError("section \(index) has fewer items than the data source's \(count)")
                }
            }
            guard remaining.isEmpty else {
                throw BatchUpdateError("section \(index) has more items than the data source's \(count)")
            }
            result[index].items = items
        }
        guard placed.isEmpty else { throw BatchUpdateError("items placed past their section's end: \(placed.keys)") }

        // Reconfigured by id: cells that moved keep their old content until then.
        let updated = Set(updatedItemIDs)
        for section in result.indices {
            for row in result[section].items.indices where updated.contains(result[section].items[row].id) {
                if let fresh = new.item(id: result[section].items[row].id) { result[section].items[row] = fresh }
            }
        }
        return result
    }
}
