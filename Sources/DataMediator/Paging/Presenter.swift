/// Decides how an item is shown: which cell type, which data (the data presenter).
///
/// A presenter declares every cell type it can produce up front, so a client can
/// register its cells before the first page arrives.
public protocol Presenter: Sendable {
    /// Every cell type ``cell(for:)`` can return.
    var cellTypes: [String] { get }

    /// The cell that shows a item. Must not fail: a missing field is `null` in `data`.
    func cell(for item: Item) -> Cell

    /// The cells of items read together (a page's), in order: each what ``cell(for:)``
    /// gives, made faster where a presenter can share work between them.
    func cells(for items: [Item]) -> [Cell]
}

extension Presenter {
    /// Each item's ``cell(for:)``.
    public func cells(for items: [Item]) -> [Cell] {
        items.map(cell(for:))
    }
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
    /// Each exposed field's key as JSON text with its colon, and the comma before it
    /// (`{"a":` for the first, `,"b":` after), written once.
    private let dataKeys: [[UInt8]]

    /// Creates a presenter for a view.
    public init(view: View, idField: String, revisionField: String? = nil) {
        self.view = view
        self.idField = idField
        self.revisionField = revisionField
        var seen = Set<String>()
        self.dataFields = view.fields.filter { seen.insert($0).inserted }.sorted()
        self.dataKeys = dataFields.enumerated().map { index, field in
            var writer = JSONWriter(capacity: field.utf8.count + 4)
            writer.raw(index == 0 ? "{" : ",")
            writer.key(field)
            return writer.bytes
        }
    }

    /// The view's cell types, without the loading cell.
    public var cellTypes: [String] { view.cellType.types }

    /// The cell for an item; its data is written once, straight from the item's values.
    public func cell(for item: Item) -> Cell {
        cell(for: item, plan: Plan(self, item.layout))
    }

    /// The cells of items; where each field sits is looked up once for items that share
    /// a layout (every item of one read does).
    public func cells(for items: [Item]) -> [Cell] {
        guard let layout = items.first?.layout else { return [] }
        let plan = Plan(self, layout)
        return items.map { item in item.layout === layout ? cell(for: item, plan: plan) : cell(for: item) }
    }

    private func cell(for item: Item, plan: Plan) -> Cell {
        var writer = JSONWriter(capacity: 32 + dataFields.count * 24)
        if dataKeys.isEmpty { writer.raw("{") }
        for (key, index) in zip(dataKeys, plan.data) {
            writer.append(key)
            writer.write(item.value(at: index))
        }
        writer.raw("}")
        let type = view.cellType.type(forValue: item.value(at: plan.type))
        let rev: String
        if revisionField != nil, case let revision = item.value(at: plan.revision), revision != .null {
            rev = revision.idString
        } else {
            rev = Self.contentRevision(type: type, data: writer.bytes)
        }
        return Cell(id: item.value(at: plan.id).idString, type: type, rev: rev, dataJSON: writer.bytes)
    }

    /// Where each field a cell reads sits in one layout (nil: the layout lacks it).
    private struct Plan {
        let data: [Int?]
        let id: Int?
        let revision: Int?
        let type: Int?

        init(_ presenter: FieldPresenter, _ layout: ItemLayout) {
            data = presenter.dataFields.map(layout.index(of:))
            id = layout.index(of: presenter.idField)
            revision = presenter.revisionField.flatMap(layout.index(of:))
            if case .field(let field, _, _) = presenter.view.cellType {
                type = layout.index(of: field)
            } else {
                type = nil
            }
        }
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
