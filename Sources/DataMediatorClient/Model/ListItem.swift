/// One data item of a list, as a page shows it: a stable `id`, the cell `type` to show
/// it with, its revision `rev` (it changes with every write to the item) and its `data`.
public struct ListItem: Sendable, Hashable, Codable, Identifiable {
    /// The item's stable id, unique within the view.
    public var id: String
    /// The cell type the view shows the item with.
    public var type: String
    /// The item's revision; a new value means new content.
    public var rev: String
    /// The fields the view exposes.
    public var data: ItemData

    /// Creates an item.
    public init(id: String, type: String, rev: String, data: ItemData) {
        self.id = id
        self.type = type
        self.rev = rev
        self.data = data
    }
}
