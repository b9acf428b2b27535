/// One change of a view, as `/changes` and `/events` send it: what a write did to the
/// view, and the store version the write produced.
public struct ListChange: Sendable, Hashable, Decodable {
    /// What the change does.
    public enum Operation: String, Sendable, Hashable, Decodable {
        /// A new item in the view, at ``ListChange/section`` after ``ListChange/after``.
        case insert
        /// New content of an item that keeps its place.
        case update
        /// An item that changed its section or the item before it (and maybe its content).
        case move
        /// An item that left the view.
        case delete
        /// The list cannot say what changed (a list over a query, or a stream too far
        /// behind): reload its pages.
        case reload
    }

    /// What the change does.
    public let op: Operation
    /// The store version the write produced.
    public let version: Int64
    /// The item's content after the change (`insert`, `update`, `move`).
    public let item: ListItem?
    /// The id of the item removed (`delete`).
    public let deletedID: String?
    /// The item's section after the change (`insert`, `move`).
    public let section: String?
    /// The id of the section just before ``section`` in the view; nil when it is the first.
    public let sectionAfter: String?
    /// The id of the item just before this one in its section; nil at the section's head.
    public let after: String?

    /// The id of the item the change is about (empty for `reload`).
    public var itemID: String { item?.id ?? deletedID ?? "" }

    private enum CodingKeys: String, CodingKey {
        case op, version, item, id, section, after
        case sectionAfter = "section_after"
    }

    /// Creates a change (tests build them; sessions decode them).
    public init(
        op: Operation,
        version: Int64,
        item: ListItem? = nil,
        deletedID: String? = nil,
        section: String? = nil,
        sectionAfter: String? = nil,
        after: String? = nil
    ) {
        self.op = op
        self.version = version
        self.item = item
        self.deletedID = deletedID
        self.section = section
        self.sectionAfter = sectionAfter
        self.after = after
    }

    /// Decodes a change from the JSON of `/changes` or of an event's `data`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        op = try container.decode(Operation.self, forKey: .op)
        let text = try container.decode(String.self, forKey: .version)
        guard let version = Int64(text) else {
            throw DecodingError.dataCorruptedError(forKey: .version, in: container, debugDescription: "not a version")
        }
        self.version = version
        item = try container.decodeIfPresent(ListItem.self, forKey: .item)
        deletedID = try container.decodeIfPresent(String.self, forKey: .id)
        section = try container.decodeIfPresent(String.self, forKey: .section)
        sectionAfter = try container.decodeIfPresent(String.self, forKey: .sectionAfter)
        after = try container.decodeIfPresent(String.self, forKey: .after)
    }
}
