/// What a list session holds at one moment: the loaded sections and items in view order,
/// the version they are current at, and whether more can be loaded at either end.
///
/// The loading cells of the pages are not items here: a screen shows a loading row when
/// ``hasMoreAfter`` (or ``hasMoreBefore``) is true and asks the session for more when it
/// scrolls there. Items and sections are unique by id, so a snapshot maps directly onto a
/// diffable data source snapshot.
public struct ListSnapshot: Sendable, Hashable {
    /// The list's name.
    public let list: String
    /// The view the items are read through (empty until the first page named it).
    public let view: String
    /// The store version the snapshot is current at: every change up to it is applied.
    public let version: Int64
    /// The loaded sections, in view order, each with its loaded items.
    public let sections: [ListSection]
    /// The cursor of the items after the last loaded one; nil when the end is loaded.
    public let nextCursor: String?
    /// The cursor of the items before the first loaded one; nil when the start is loaded.
    public let previousCursor: String?
    private let paths: [ExactID: ItemPath]

    /// Creates a snapshot; items must be unique by id.
    public init(
        list: String,
        view: String,
        version: Int64,
        sections: [ListSection],
        nextCursor: String?,
        previousCursor: String?
    ) {
        self.list = list
        self.view = view
        self.version = version
        self.sections = sections
        self.nextCursor = nextCursor
        self.previousCursor = previousCursor
        var paths: [ExactID: ItemPath] = [:]
        for (section, content) in sections.enumerated() {
            for (item, value) in content.items.enumerated() {
                paths[ExactID(value.id)] = ItemPath(section: section, item: item)
            }
        }
        self.paths = paths
    }

    /// An empty snapshot of `list`, before its first page.
    public static func empty(list: String) -> ListSnapshot {
        ListSnapshot(list: list, view: "", version: 0, sections: [], nextCursor: nil, previousCursor: nil)
    }

    /// Whether items follow the last loaded one (the screen shows a loading row at the end).
    public var hasMoreAfter: Bool { nextCursor != nil }
    /// Whether items precede the first loaded one (a loading row at the top).
    public var hasMoreBefore: Bool { previousCursor != nil }
    /// Every loaded item, in view order.
    public var items: [ListItem] { sections.flatMap(\.items) }
    /// How many items are loaded.
    public var itemCount: Int { paths.count }

    /// The loaded item with that id, if any.
    public func item(id: String) -> ListItem? {
        guard let path = paths[ExactID(id)] else { return nil }
        return sections[path.section].items[path.item]
    }

    /// Where the loaded item with that id is, if loaded.
    public func path(of id: String) -> ItemPath? { paths[ExactID(id)] }

    /// The item at a path; nil when the path is outside the snapshot.
    public func item(at path: ItemPath) -> ListItem? {
        guard sections.indices.contains(path.section), sections[path.section].items.indices.contains(path.item)
        else { return nil }
        return sections[path.section].items[path.item]
    }
}
