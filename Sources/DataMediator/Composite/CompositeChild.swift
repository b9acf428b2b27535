/// One child of a composite list, in the composite's order: a static section given in the
/// config, or a view of another list (a composite too), optionally capped to its first
/// items and followed by a `more` cell that links to the rest.
public struct CompositeChild: Sendable {
    /// What a child shows.
    public enum Content: Sendable {
        /// A fixed section: its id, title and cells.
        case section(id: String, title: String?, cells: [Cell])
        /// A view of another list.
        case list(ListAdapter, view: View)
    }

    /// The child's name, the prefix of its section and item ids (`name/id`).
    public let name: String
    /// What it shows.
    public let content: Content
    /// At most this many of its items are shown; nil for all of them.
    public let cap: Int?
    /// Whether a capped list child ends with a `more` cell when it has more items than its cap.
    public let more: Bool

    /// Creates a child.
    public init(name: String, content: Content, cap: Int? = nil, more: Bool = false) {
        self.name = name
        self.content = content
        self.cap = cap.map { max(0, $0) }
        self.more = more
    }

    /// The cell type of a child's `more` cell.
    public static let moreType = "more"

    /// The id of this child's `more` cell and of the section that holds it. A `:` cannot
    /// appear in a child's name, so it never equals the id of an item or section
    /// (`name/...`) of any child.
    public var moreID: String { name + ":more" }

    /// Every cell type the child can show.
    public var cellTypes: [String] {
        var types: [String]
        switch content {
        case .section(_, _, let cells): types = cells.map(\.type)
        case .list(let adapter, let view):
            types = adapter.presenter(for: view).cellTypes.filter { $0 != Cell.loadingType }
        }
        if more && cap != nil { types.append(Self.moreType) }
        return types
    }

    /// The parameters a list child fixes for its view (`params` in the config), by name, as
    /// a query string gives them: its description and its `more` cell name them, since a
    /// cursor of the view is bound to them. None for a static section.
    public var parameters: [(name: String, value: JSONValue)] {
        guard case .list(_, let view) = content else { return [] }
        return view.parameters.compactMap { parameter in
            view.slice[parameter.field].map { (parameter.name, JSONValue.string($0.idString)) }
        }
    }

    /// What places the child's items in the composite's order, for its cursors' binding
    /// (``View/cursorBinding``): its name, what it shows (a list's view by its own cursor
    /// binding, which holds its order, its slice and, for a composite, its children), its
    /// cap and its `more` cell. A cursor issued before any of them changed is refused.
    var shape: JSONValue {
        var fields: [JSONValue] = [.string(name)]
        switch content {
        case .section(let id, _, let cells): fields += [.string(id), .integer(Int64(cells.count))]
        case .list(let adapter, let view): fields += [.string(adapter.definition.name), .string(view.cursorBinding)]
        }
        return .array(fields + [cap.map { .integer(Int64($0)) } ?? .null, .bool(more)])
    }

    /// ``shape`` with a list child's view by its ``View/typedCursorBinding``: what the
    /// composite's own typed binding holds, so that a composite cursor from before a child's
    /// sort key changed type is refused as the child's own is.
    var typedShape: JSONValue {
        guard case .list(let adapter, let view) = content, view.typedCursorBinding != view.cursorBinding else {
            return shape
        }
        return .array([
            .string(name), .string(adapter.definition.name), .string(view.typedCursorBinding),
            cap.map { .integer(Int64($0)) } ?? .null, .bool(more),
        ])
    }

    /// Whether what the child shows changes: a list with a change feed (a store's list, a
    /// composite that shows one), not a static section, a file read at start or a
    /// composite of only those (its version stays 0, which as the least of a page's
    /// children's would have been the page's).
    var changes: Bool {
        guard case .list(let adapter, _) = content, adapter.changeLog != nil else { return false }
        guard let composite = adapter.provider as? CompositeDataProvider else { return true }
        return composite.children.contains(where: \.changes)
    }

    /// The version of what the child shows: its list's, 0 for a static section.
    func version() async throws -> Int64 {
        guard case .list(let adapter, _) = content else { return 0 }
        return try await adapter.currentVersion()
    }
}
