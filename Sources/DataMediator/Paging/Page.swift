/// One page of a view, as `GET /lists/{list}/items` answers it.
public struct Page: Sendable, Hashable {
    /// The list's name.
    public let list: String
    /// The view's name.
    public let view: String
    /// The number of data items asked for, after clamping.
    public let limit: Int
    /// The source's change counter when the page was read.
    public let version: Int64
    /// The sections, in order: the `loading-before` section first when more items
    /// precede, the `loading` section last when more follow.
    public let sections: [PageSection]
    /// The signed cursor of the items after the page, nil on the last page.
    public let next: String?
    /// The signed cursor of the items before the page, nil when the page starts the view.
    public let prev: String?

    /// Creates a page.
    public init(
        list: String,
        view: String,
        limit: Int,
        version: Int64,
        sections: [PageSection],
        next: String?,
        prev: String? = nil
    ) {
        self.list = list
        self.view = view
        self.limit = limit
        self.version = version
        self.sections = sections
        self.next = next
        self.prev = prev
    }

    /// The data items of the page in order (the loading item left out).
    public var items: [Cell] {
        sections.filter { $0.kind == .items }.flatMap(\.items)
    }

    /// The page as JSON, keys in the order of API.md.
    public func json() -> [UInt8] {
        var writer = JSONWriter(capacity: 1024 + limit * 192)
        writer.openAnswer(list: list, view: view)
        writer.raw(",\"limit\":")
        writer.write(limit)
        writer.raw(",\"version\":")
        writer.write(String(version))
        writer.raw(",\"sections\":[")
        for (index, section) in sections.enumerated() {
            writer.separator(index)
            section.write(to: &writer)
        }
        writer.raw("],\"next\":")
        writer.write(next)
        writer.raw(",\"prev\":")
        writer.write(prev)
        writer.raw("}")
        return writer.bytes
    }
}

/// A run of consecutive items of one section within a page, or the synthetic loading section.
public struct PageSection: Sendable, Hashable {
    /// What a section holds.
    public enum Kind: String, Sendable, Hashable {
        /// Data items.
        case items
        /// The one synthetic loading item that asks for the next page (`loading`) or the
        /// one before (`loading-before`).
        case loading
    }

    /// The section's id; unique with ``kind`` within a page.
    public let id: String
    /// What the section holds.
    public let kind: Kind
    /// The section's title, nil when it has none.
    public let title: String?
    /// Whether the section began on an earlier page.
    public let continues: Bool
    /// The items.
    public let items: [Cell]

    /// Creates a section.
    public init(id: String, kind: Kind, title: String?, continues: Bool, items: [Cell]) {
        self.id = id
        self.kind = kind
        self.title = title
        self.continues = continues
        self.items = items
    }

    /// Writes the section as `{"id", "kind", "title", "continues", "items"}`.
    public func write(to writer: inout JSONWriter) {
        writer.raw("{\"id\":")
        writer.write(id)
        writer.raw(",\"kind\":")
        writer.write(kind.rawValue)
        writer.raw(",\"title\":")
        writer.write(title)
        writer.raw(",\"continues\":")
        writer.write(continues)
        writer.raw(",\"items\":[")
        for (index, item) in items.enumerated() {
            writer.separator(index)
            item.write(to: &writer)
        }
        writer.raw("]}")
    }
}
