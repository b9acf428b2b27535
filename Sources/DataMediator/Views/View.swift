/// A view of a list: one order, grouping, filter and presentation over the list's data
/// (the state pattern's alternate data source, chosen with `?view=`).
///
/// The order is total: ``sort`` always ends with the list's id field, so a keyset
/// position names exactly one place in the view.
public struct View: Sendable, Hashable {
    /// The view's name, unique within its list.
    public let name: String
    /// Whether this view is served when a request names none.
    public let isDefault: Bool
    /// The sort keys, the last one always the id field.
    public let sort: [SortKey]
    /// How items are grouped into sections; nil for one section over the whole view.
    public let section: SectionRule?
    /// Conditions an item must meet to be in the view.
    public let filter: [FilterCondition]
    /// How each item's cell type is chosen.
    public let cellType: CellTypeRule
    /// The fields exposed in each item's `data`, in order.
    public let fields: [String]
    /// The equality filters a request may fill in (``ViewParameter``).
    public let parameters: [ViewParameter]
    /// The field values that select this view's slice (parameters given and the list's
    /// scope); empty for the whole view. Their conditions are part of ``filter``.
    public let slice: [String: JSONValue]
    /// What a cursor and the change log bind to: the name, and a digest of the slice's
    /// values when there is one, so a cursor of one slice is refused on another.
    public let binding: String
    /// What a view's shape is known by: the ``binding`` and a digest of the order, the
    /// section rule and the filter (a composite's children too), so a cursor issued before
    /// the view's definition changed is refused rather than read as a place in another
    /// order. The change log keys a view's changes by it, and a composite's shape holds
    /// its children's.
    public let cursorBinding: String
    /// What a cursor signed now binds to: ``cursorBinding`` and, when the view has sort keys
    /// of a type other than text, a digest of their types (`~`…): a cursor issued before a
    /// sort key's type changed carries values of the old type, which the store cannot
    /// compare with the new (PostgreSQL refuses the statement, SQLite orders them apart),
    /// and is refused as of another definition. A cursor bound to ``cursorBinding`` alone
    /// (of a release before the types were bound) is still taken, so an upgrade ends none.
    public let typedCursorBinding: String

    /// Creates a view; `idField` is appended to `sort` unless it already ends it.
    /// `fieldTypes` holds the declared types of its fields, those of the sort keys bound in
    /// ``typedCursorBinding``; `typedParts`, a composite's children by their typed bindings,
    /// bound there too.
    public init(
        name: String,
        isDefault: Bool = false,
        sort: [SortKey],
        idField: String,
        section: SectionRule? = nil,
        filter: [FilterCondition] = [],
        cellType: CellTypeRule,
        fields: [String],
        parameters: [ViewParameter] = [],
        fieldTypes: [String: FieldType] = [:],
        composedOf parts: JSONValue = .null,
        typedParts: JSONValue = .null
    ) {
        self.name = name
        self.isDefault = isDefault
        var keys = sort.filter { $0.field != idField }
        let idOrder = sort.first { $0.field == idField }?.order ?? sort.last?.order ?? .ascending
        keys.append(SortKey(idField, idOrder))
        self.sort = keys
        self.section = section
        self.filter = filter
        self.cellType = cellType
        self.fields = fields
        self.parameters = parameters
        self.slice = [:]
        self.binding = name
        self.cursorBinding = name + "@" + Self.shapeDigest(sort: keys, section: section, filter: filter, parts: parts)
        // A composite's: its children's types, bound as a view's own are.
        let typedChildren =
            typedParts == .null || typedParts == parts ? "" : "~" + Slice.digest(of: ["parts": typedParts])
        self.typedCursorBinding = cursorBinding + Self.typesDigest(sort: keys, types: fieldTypes) + typedChildren
    }

    /// A digest of what places an item in a view: its sort keys, section rule and filter,
    /// and for a composite's view what it is composed of (`parts`: its children, in order).
    private static func shapeDigest(
        sort: [SortKey],
        section: SectionRule?,
        filter: [FilterCondition],
        parts: JSONValue
    ) -> String {
        var shape: [String: JSONValue] = [
            "sort": .array(sort.map { .string("\($0.field) \($0.order)") }),
            "section": section.map { .string("\($0.field) \($0.grouping)") } ?? .null,
            "filter": .array(filter.map { .array([.string($0.field), .string("\($0.op)"), $0.value]) }),
        ]
        // Only a composite's: the digests of other views stay what their cursors carry.
        if parts != .null { shape["parts"] = parts }
        return Slice.digest(of: shape)
    }

    /// `~` and a digest of the types of the sort keys not of text, empty when there is none.
    private static func typesDigest(sort: [SortKey], types: [String: FieldType]) -> String {
        let typed = sort.compactMap { key in
            types[key.field].flatMap { $0 == .string ? nil : JSONValue.string("\(key.field) \($0.rawValue)") }
        }
        return typed.isEmpty ? "" : "~" + Slice.digest(of: ["types": .array(typed)])
    }

    /// The same view with the slice and binding of another (its reversal).
    private init(_ view: View, name: String, sort: [SortKey], filter: [FilterCondition], slice: [String: JSONValue]) {
        self.name = name
        self.isDefault = view.isDefault
        self.sort = sort
        self.section = view.section
        self.filter = filter
        self.cellType = view.cellType
        self.fields = view.fields
        self.parameters = view.parameters
        self.slice = slice
        self.binding = slice.isEmpty ? view.name : view.name + "#" + Slice.digest(of: slice)
        self.cursorBinding = binding + view.cursorBinding.drop { $0 != "@" }
        self.typedCursorBinding = binding + view.typedCursorBinding.drop { $0 != "@" }
    }

    /// The view narrowed to the items whose fields equal `values` (parameters given and a
    /// scope's claim): each value becomes an equality condition of the filter.
    public func sliced(_ values: [String: JSONValue]) -> View {
        guard !values.isEmpty else { return self }
        var merged = slice
        for (field, value) in values { merged[field] = value }
        let conditions = values.keys.sorted().map { FilterCondition(field: $0, op: .eq, value: values[$0] ?? .null) }
        return View(self, name: name, sort: sort, filter: filter + conditions, slice: merged)
    }

    /// Every cell type a page of this view can contain, the loading cell last.
    public var cellTypes: [String] {
        var types = cellType.types
        if !types.contains(Cell.loadingType) { types.append(Cell.loadingType) }
        return types
    }

    /// Whether a item passes the view's filter.
    public func includes(_ item: Item) -> Bool {
        filter.allSatisfy { $0.matches(item) }
    }

    /// A item's keyset position in this view.
    public func position(of item: Item) -> Position {
        Position(sort.map { item[$0.field] })
    }

    /// The keyset positions of items read together (a page's rows): where each sort field
    /// sits is looked up once for items that share a layout, not once per item.
    public func positions(of items: [Item]) -> [Position] {
        var layout: ItemLayout?
        var indexes: [Int?] = []
        return items.map { item in
            if item.layout !== layout {
                layout = item.layout
                indexes = sort.map { item.layout.index(of: $0.field) }
            }
            return Position(indexes.map { item.value(at: $0) })
        }
    }

    /// `items` in view order: as given when they already are (checked in one pass, as the
    /// rows of a read usually come), sorted otherwise.
    public func ordered(_ items: [Item]) -> [Item] {
        let positions = positions(of: items)
        if zip(positions, positions.dropFirst()).allSatisfy({ compare($0, $1) <= 0 }) { return items }
        return zip(items, positions).sorted { compare($0.1, $1.1) < 0 }.map(\.0)
    }

    /// Compares two positions in view order: negative when `lhs` comes first.
    public func compare(_ lhs: Position, _ rhs: Position) -> Int {
        for (index, key) in sort.enumerated() where index < lhs.values.count && index < rhs.values.count {
            let order = JSONValue.compare(lhs.values[index], rhs.values[index])
            if order != 0 { return key.order == .ascending ? order : -order }
        }
        return 0
    }

    /// The section id and title of an item (the view's name and no title when the view
    /// has no section rule).
    public func section(of item: Item) -> (id: String, title: String?) {
        guard let section else { return (name, nil) }
        let key = section.key(for: item[section.field])
        if let titleField = section.titleField {
            guard case .string(let title) = item[titleField] else { return (section.id(for: key), nil) }
            return (section.id(for: key), title)
        }
        return (section.id(for: key), section.title(for: key))
    }

    /// The section id of an item, without its title (which takes longer to form).
    public func sectionID(of item: Item) -> String {
        guard let section else { return name }
        return section.id(for: section.key(for: item[section.field]))
    }

    /// The section ids of items read together, in order: each what ``sectionID(of:)``
    /// gives, the section field looked up once for items that share a layout.
    public func sectionIDs(of items: [Item]) -> [String] {
        guard let section else { return items.map { _ in name } }
        guard let layout = items.first?.layout else { return [] }
        let index = layout.index(of: section.field)
        return items.map { item in
            section.id(for: section.key(for: item.layout === layout ? item.value(at: index) : item[section.field]))
        }
    }

    /// The same view in the opposite order (every sort key flipped, the id's included):
    /// reading it forward from a position reads this view backward from there.
    public var reversed: View {
        let keys = sort.map { SortKey($0.field, $0.order == .ascending ? .descending : .ascending) }
        return View(self, name: name + "\u{0}reversed", sort: keys, filter: filter, slice: slice)
    }

    /// Checks the rule that keeps sections contiguous: the section field must be the
    /// leading sort key. Returns a message naming the fix when it is not.
    public func sectionProblem() -> String? {
        guard let section else { return nil }
        guard let first = sort.first, first.field == section.field else {
            let leading = sort.first?.field ?? "(none)"
            return "view '\(name)' is sectioned by '\(section.field)' but sorted first by '\(leading)': "
                + "a section key must be the leading sort key (or derived from it), or its sections would repeat; "
                + "put '\(section.field)' first in 'sort'"
        }
        return nil
    }
}

/// A keyset position: the values of a view's sort keys for one item, the id last.
public struct Position: Sendable, Hashable {
    /// The values, one per sort key.
    public let values: [JSONValue]

    /// Creates a position from sort key values.
    public init(_ values: [JSONValue]) {
        self.values = values
    }
}
