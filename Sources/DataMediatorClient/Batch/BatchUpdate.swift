/// The difference between two snapshots, in the two forms list views take it.
///
/// **Index paths, for `performBatchUpdates`** (`UITableView`, `UICollectionView`):
/// ``deletedSections``, ``deletedItems`` and ``reloadedItems`` index the snapshot before;
/// ``insertedSections`` and ``insertedItems`` index the snapshot after; each of
/// ``movedItems`` goes from a path before to a path after. Items of a deleted section are
/// not listed as deleted, nor items of an inserted section as inserted (the section update
/// covers them); an item that leaves a deleted section or enters an inserted one is an
/// insert or a delete, never a move (UIKit refuses those moves). An item that both moves
/// and changes is a move, and its id is in ``updatedItemIDs``: reconfigure it after the
/// batch, since UIKit refuses a reload and a move of the same item in one batch.
///
/// **Ids, for a diffable data source**: apply the new snapshot's section and item ids, and
/// reconfigure (or reload) ``updatedItemIDs``; the other id lists say what happened.
///
/// A batch is computed by diffing the two snapshots by stable ids, so it is right whatever
/// changes, pages or reloads led from one to the other.
public struct BatchUpdate: Sendable, Hashable {
    /// Indices (before) of the sections removed, ascending.
    public internal(set) var deletedSections: [Int] = []
    /// Indices (after) of the sections added, ascending.
    public internal(set) var insertedSections: [Int] = []
    /// Paths (before) of the items removed from sections that stay, ascending.
    public internal(set) var deletedItems: [ItemPath] = []
    /// Paths (after) of the items added to sections that stay, ascending.
    public internal(set) var insertedItems: [ItemPath] = []
    /// Items that stay but change their place: from a path before to a path after.
    public internal(set) var movedItems: [ItemMove] = []
    /// Paths (before) of items that keep their place but whose content changed.
    public internal(set) var reloadedItems: [ItemPath] = []

    /// Ids of the sections removed.
    public internal(set) var deletedSectionIDs: [String] = []
    /// Ids of the sections added.
    public internal(set) var insertedSectionIDs: [String] = []
    /// Ids of the items no longer in the snapshot.
    public internal(set) var deletedItemIDs: [String] = []
    /// Ids of the items new in the snapshot.
    public internal(set) var insertedItemIDs: [String] = []
    /// Ids of the items in both snapshots whose place among the others changed.
    public internal(set) var movedItemIDs: [String] = []
    /// Ids of the items in both snapshots whose content (`rev`, `type` or `data`) changed.
    public internal(set) var updatedItemIDs: [String] = []

    /// An empty batch.
    public init() {}

    /// Whether nothing changed in the sections or items.
    public var isEmpty: Bool {
        deletedSectionIDs.isEmpty && insertedSectionIDs.isEmpty && deletedItemIDs.isEmpty
            && insertedItemIDs.isEmpty && movedItemIDs.isEmpty && updatedItemIDs.isEmpty
    }
}
