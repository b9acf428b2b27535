/// How a composite item is made and where it stands: its position holds the child, how
/// many of that child's items were shown up to it, and its position in the child.
extension CompositeDataProvider {
    static func item(_ entry: ListEntry, child: CompositeChild, index: Int, served: Int) -> Item {
        Item(
            layout: layout,
            values: [
                position(child: index, served: served, inner: entry.position),
                .string(child.name + "/" + entry.cell.id),
                .string(child.name + "/" + entry.sectionID),
                entry.sectionTitle.map(JSONValue.string) ?? .null,
                .string(entry.cell.type),
                .string(entry.cell.rev),
                numbers(of: entry.cell.data, in: child),
            ]
        )
    }

    /// A child's cell data with its whole numbers of `number` fields made numbers again
    /// (`7.0`), as the child shows them: the data comes back from the cell's JSON text, whose
    /// `7.0` the parser reads as the whole number 7.
    private static func numbers(of data: JSONValue, in child: CompositeChild) -> JSONValue {
        guard case .list(let adapter, _) = child.content, case .object(var members) = data else { return data }
        for (name, value) in members where adapter.definition.rules.types[name] == .number {
            members[name] = FieldType.number.present(value)
        }
        return .object(members)
    }

    static func position(child: Int, served: Int, inner: Position?) -> JSONValue {
        .array([.integer(Int64(child)), .integer(Int64(served)), inner.map { .array($0.values) } ?? .null])
    }

    /// Positions in the composite's order: by child, then as the child orders its own: a
    /// static section by how many of its cells come before, a list child by its provider's
    /// comparison of the positions in it, and a capped child's `more` cell (counted past the
    /// cap) after every item the child shows. Never by how many of a list child's items came
    /// before: a write before an item changes that count, not the item's place.
    public func compare(_ lhs: Position, _ rhs: Position, in view: View) -> Int {
        guard let left = try? Resume(lhs, inclusive: false, childCount: children.count),
            let right = try? Resume(rhs, inclusive: false, childCount: children.count)
        else { return view.compare(lhs, rhs) }
        if left.child != right.child { return left.child < right.child ? -1 : 1 }
        guard left.child < children.count, case .list(let adapter, let childView) = children[left.child].content
        else { return left.served == right.served ? 0 : left.served < right.served ? -1 : 1 }
        if let cap = children[left.child].cap, left.served > cap || right.served > cap {
            return left.served > cap && right.served > cap ? 0 : left.served > cap ? 1 : -1
        }
        switch (left.inner, right.inner) {
        case (nil, nil): return 0
        case (nil, _): return -1
        case (_, nil): return 1
        case (let inner?, let other?): return adapter.compare(inner, other, in: childView)
        }
    }

    /// `position` with its child's keys that a token carried abridged inside it
    /// (``AbridgedKey``) made whole by the child, as a cursor of the child's own is
    /// (``ListAdapter/whole(_:in:)``): read back from the child's item, or widened to the
    /// side the page reads toward. A position that holds none is returned as it is.
    public func whole(_ position: Position, backward: Bool) async throws -> Position {
        guard position.values.count == 1, case .array(let parts) = position.values[0], parts.count == 3,
            case .integer(let child) = parts[0], child >= 0, child < Int64(children.count),
            case .array(let inner) = parts[2], case .list(let adapter, let childView) = children[Int(child)].content
        else { return position }
        let (plain, abridged) = AbridgedKey.unmarked(inner) ?? (Position(inner), [:])
        let cursor = Cursor(
            list: adapter.definition.name,
            view: childView.typedCursorBinding,
            position: plain,
            inclusive: false,
            backward: backward,
            abridged: abridged
        )
        let whole = try await adapter.whole(cursor, in: childView)
        return Position([.array([parts[0], parts[1], .array(whole.position.values)])])
    }

    static func badCursor() -> DataMediatorError {
        DataMediatorError(.badCursor, "The cursor does not fit this composite list; reload from the first page.")
    }

    /// Where a window resumes: the child, how many of its items were shown, and its own position.
    struct Resume {
        var child: Int
        var served: Int
        var inner: Position?
        var innerInclusive: Bool

        init(child: Int, served: Int, inner: Position?, innerInclusive: Bool) {
            (self.child, self.served, self.inner, self.innerInclusive) = (child, served, inner, innerInclusive)
        }

        init(_ start: Position?, inclusive: Bool, childCount: Int) throws(DataMediatorError) {
            guard let start else {
                (child, served, inner, innerInclusive) = (0, 0, nil, false)
                return
            }
            guard start.values.count == 1, case .array(let parts) = start.values[0], parts.count == 3,
                case .integer(let child) = parts[0], case .integer(let served) = parts[1],
                child >= 0, served >= 0
            else { throw CompositeDataProvider.badCursor() }
            self.child = Int(clamping: min(child, Int64(childCount)))
            switch parts[2] {
            case .null: inner = nil
            case .array(let values): inner = Position(values)
            default: throw CompositeDataProvider.badCursor()
            }
            // An inclusive start shows the item it names again, so it is not counted yet.
            self.served = max(0, Int(clamping: served) - (inclusive ? 1 : 0))
            innerInclusive = inclusive
        }

        mutating func nextChild() {
            child += 1
            served = 0
            inner = nil
            innerInclusive = false
        }
    }
}
