/// One item of a view as a composite list takes it from a child list: the cell a page
/// shows, its section, and its position in the child's view (where paging resumes).
public struct ListEntry: Sendable, Hashable {
    /// The cell, as the child's page shows it.
    public let cell: Cell
    /// The id of the item's section in the child's view.
    public let sectionID: String
    /// The title of that section.
    public let sectionTitle: String?
    /// The item's position in the child's view.
    public let position: Position

    /// Creates an entry.
    public init(cell: Cell, sectionID: String, sectionTitle: String?, position: Position) {
        self.cell = cell
        self.sectionID = sectionID
        self.sectionTitle = sectionTitle
        self.position = position
    }
}
