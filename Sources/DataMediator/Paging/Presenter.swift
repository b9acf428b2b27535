/// Decides how an item is shown: which cell type, which data (the data presenter).
///
/// A presenter declares every cell type it can produce up front, so a client can
/// register its cells before the first page arrives.
public protocol Presenter: Sendable {
    /// Every cell type ``cell(for:)`` can return.
    var cellTypes: [String] { get }

    /// The cell that shows a item. Must not fail: a missing field is `null` in `data`.
    func cell(for item: Item) -> Cell
}

/// A presenter driven by a view's declaration: the id from the id field, the type from the
/// view's cell type rule, `data` from the view's exposed fields.
///
/// `rev` is the revision field's value when the list has one; otherwise a hash of the
/// cell's type and data, so it still changes exactly when the content does.
public struct FieldPresenter: Presenter {
    /// The field holding the item's id.
    public let idField: String
    /// The field holding the item's revision, if the source keeps one.
    public let revisionField: String?
    /// The view whose rules this presenter applies.
    public let view: View
    /// The exposed fields in the order `data` is written: sorted, as every JSON object here.
    private let dataFields: [String]

    /// Creates a presenter for a view.
    public init(view: View, idField: String, revisionField: String? = nil) {
        self.view = view
        self.idField = idField
        self.revisionField = revisionField
        var seen = Set<String>()
        self.dataFields = view.fields.filter { seen.insert($0).inserted }.sorted()
    }

    /// The view's cell types, without the loading cell.
    public var cellTypes: [String] { view.cellType.types }

    /// The cell for an item; its data is written once, straight from the item's values.
    public func cell(for item: Item) -> Cell {
        var writer = JSONWriter(capacity: 32 + dataFields.count * 24)
        writer.raw("{")
        for (index, field) in dataFields.enumerated() {
            writer.separator(index)
            writer.key(field)
            writer.write(item[field])
        }
        writer.raw("}")
        let type = view.cellType.type(for: item)
        let rev: String
        if let revisionField, item[revisionField] != .null {
            rev = item[revisionField].idString
        } else {
            rev = Self.contentRevision(type: type, data: writer.bytes)
        }
        return Cell(id: item[idField].idString, type: type, rev: rev, dataJSON: writer.bytes)
    }

    /// A short, stable hash (FNV-1a, 64 bits, hex) of a cell's type and data JSON.
    public static func contentRevision(type: String, data: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in type.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        hash ^= 0xFF
        hash &*= 0x0000_0100_0000_01B3
        for byte in data {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
