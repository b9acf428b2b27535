/// One item as a page shows it: a stable id, the cell type that shows it, a revision
/// that changes when its content changes, and its exposed data.
///
/// The data is kept as the JSON it is sent as, written once when the cell is made, so a
/// page writes it by copying bytes.
public struct Cell: Sendable, Hashable {
    /// The `type` of the synthetic item in the loading section.
    public static let loadingType = "loading"

    /// The item's id, unique in its list.
    public let id: String
    /// The cell type that presents the item.
    public let type: String
    /// The item's revision: equal revisions mean equal content.
    public let rev: String
    /// The exposed fields as JSON text (an object, keys in sorted order).
    public let dataJSON: [UInt8]

    /// Creates a cell whose data is already JSON text.
    public init(id: String, type: String, rev: String, dataJSON: [UInt8]) {
        self.id = id
        self.type = type
        self.rev = rev
        self.dataJSON = dataJSON
    }

    /// Creates a cell from a data value.
    public init(id: String, type: String, rev: String, data: JSONValue) {
        var writer = JSONWriter(capacity: 128)
        writer.write(data)
        self.init(id: id, type: type, rev: rev, dataJSON: writer.bytes)
    }

    /// The exposed fields as a value (parsed from ``dataJSON``).
    public var data: JSONValue {
        (try? JSONValue.parse(dataJSON)) ?? .null
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
        writer.append(dataJSON)
        writer.raw("}")
    }
}
