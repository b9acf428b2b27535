/// Where an item stands in the whole view, as `GET /lists/{list}/items/{id}` answers it
/// (the contract's `indexForItem`): its path among all the view's sections from its start,
/// its place in the whole view, its section, and a cursor whose page starts with it, to
/// open the list there (``ListSession/open(cursor:)``) or around it.
public struct ListLocation: Sendable, Hashable, Decodable {
    /// The item as pages show it.
    public let item: ListItem
    /// Its section's index among all the view's sections, and its index within it (not
    /// its path in a session's snapshot, which holds only what is loaded).
    public let indexPath: ItemPath
    /// Its section's id.
    public let sectionID: String
    /// Its section's title; nil when the view gives none.
    public let sectionTitle: String?
    /// Its place in the whole view, from 0.
    public let position: Int
    /// A cursor whose page starts with the item.
    public let cursor: String

    private enum Member: String, CodingKey {
        case item
        case indexPath = "index_path"
        case section, position, cursor
    }

    private struct Path: Decodable {
        let section: Int
        let item: Int
    }

    private struct Section: Decodable {
        let id: String
        let title: String?
    }

    /// Decodes the answer of `GET /lists/{list}/items/{id}`.
    public init(from decoder: any Decoder) throws {
        let members = try decoder.container(keyedBy: Member.self)
        item = try members.decode(ListItem.self, forKey: .item)
        let path = try members.decode(Path.self, forKey: .indexPath)
        indexPath = ItemPath(section: path.section, item: path.item)
        let section = try members.decode(Section.self, forKey: .section)
        sectionID = section.id
        sectionTitle = section.title
        position = try members.decode(Int.self, forKey: .position)
        cursor = try members.decode(String.self, forKey: .cursor)
    }
}
