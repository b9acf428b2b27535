/// One section of the loaded part of a list: its stable id, its title and its items in
/// view order. A section cut by a page boundary is one section here (merged by id).
public struct ListSection: Sendable, Hashable, Identifiable {
    /// The section's stable id (a section key such as a day, or the view's name).
    public var id: String
    /// The title to show, if the view gives one.
    public var title: String?
    /// The items, in view order.
    public var items: [ListItem]

    /// Creates a section.
    public init(id: String, title: String?, items: [ListItem]) {
        self.id = id
        self.title = title
        self.items = items
    }
}
