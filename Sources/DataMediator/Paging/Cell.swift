/// One item as a page shows it: a stable id, the cell type that shows it, a revision
/// that changes when its content changes, and its exposed data.
public struct Cell: Sendable, Hashable {
    /// The `type` of the synthetic item in the loading section.
    public static let loadingType = "loading"

    /// The item's id, unique in its list.
    public let id: String
    /// The cell type that presents the item.
    public let type: String
    /// The item's revision: equal revisions mean equal content.
    public let rev: String
    /// The exposed fields, as a JSON object.
    public let data: JSONValue

    /// Creates a cell.
    public init(id: String, type: String, rev: String, data: JSONValue) {
        self.id = id
        self.type = type
        self.rev = rev
        self.data = data
    }

    /// Writes the cell as `{"id", "type", "rev", "data"}`.
    public func write(to writer: inout JSONWriter) {
        writer.raw("{\"id\":")
        writer.write(id)
        writer.raw(",\"type\":")
        writer.write(type)
        writer.raw(",\"rev\":")
        writer.write(rev)
        writer.raw(",\"data\":")
        writer.write(data)
        writer.raw("}")
    }
}
