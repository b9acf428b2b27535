/// One item and where it stands in a view, as `GET /lists/{list}/items/{id}` answers.
public struct ItemLocation: Sendable, Hashable {
    /// The list's name.
    public let list: String
    /// The view's name.
    public let view: String
    /// The source's change counter when the item was read.
    public let version: Int64
    /// The item as a page shows it.
    public let item: Cell
    /// The index of the item's section among the view's sections.
    public let sectionIndex: Int
    /// The item's index within its section.
    public let itemIndex: Int
    /// The id of the item's section.
    public let sectionID: String
    /// The title of the item's section.
    public let sectionTitle: String?
    /// The item's index in the whole view.
    public let position: Int
    /// A cursor whose page starts with this item.
    public let cursor: String

    /// Creates an item location.
    public init(
        list: String,
        view: String,
        version: Int64,
        item: Cell,
        sectionIndex: Int,
        itemIndex: Int,
        sectionID: String,
        sectionTitle: String?,
        position: Int,
        cursor: String
    ) {
        self.list = list
        self.view = view
        self.version = version
        self.item = item
        self.sectionIndex = sectionIndex
        self.itemIndex = itemIndex
        self.sectionID = sectionID
        self.sectionTitle = sectionTitle
        self.position = position
        self.cursor = cursor
    }

    /// The answer as JSON.
    public func json() -> [UInt8] {
        var writer = JSONWriter(capacity: 512)
        writer.openAnswer(list: list, view: view)
        writer.raw(",\"version\":")
        writer.write(String(version))
        writer.raw(",\"item\":")
        item.write(to: &writer)
        writer.raw(",\"index_path\":{\"section\":")
        writer.write(sectionIndex)
        writer.raw(",\"item\":")
        writer.write(itemIndex)
        writer.raw("},\"section\":{\"id\":")
        writer.write(sectionID)
        writer.raw(",\"title\":")
        writer.write(sectionTitle)
        writer.raw("},\"position\":")
        writer.write(position)
        writer.raw(",\"cursor\":")
        writer.write(cursor)
        writer.raw("}")
        return writer.bytes
    }
}
