/// Tells, for each view of a list, what one write did to it: compares where the item stood
/// before the write with where it stands after, inside the write's transaction.
public struct ChangeRecorder: Sendable {
    /// The list's views.
    public let views: [View]
    /// The field that holds each item's id.
    public let idField: String
    /// The field of the list's scope, if it has one: an item is only in its own slice.
    public let scopeField: String?

    /// Creates a recorder for a list's views.
    public init(views: [View], idField: String, scopeField: String? = nil) {
        self.views = views
        self.idField = idField
        self.scopeField = scopeField
    }

    /// The placement of `item` in every slice of every view whose filter takes it (the
    /// whole view, and each slice its parameters and the list's scope select, see
    /// ``Slice/slices(of:in:scope:)``), keyed by the slice's binding.
    ///
    /// - Parameters:
    ///   - withSectionAfter: true after a write (the placements a change log keeps), false
    ///     before it (only compared).
    ///   - before: up to `limit` items of a view strictly before a position, nearest first.
    ///   - beforeSection: the last item of a view before the section with a key (see
    ///     ``Placement/of(_:in:idField:withSectionAfter:before:beforeSection:)``), when the
    ///     store can read it directly.
    public func placements(
        of item: Item?,
        withSectionAfter: Bool,
        before: (_ view: View, _ position: Position, _ limit: Int) throws -> [Item],
        beforeSection: ((_ view: View, _ key: JSONValue) throws -> Item?)? = nil
    ) throws -> [String: Placement] {
        guard let item else { return [:] }
        var placements: [String: Placement] = [:]
        for view in slices(of: item) where view.includes(item) {
            placements[view.binding] = try Placement.of(
                item,
                in: view,
                idField: idField,
                withSectionAfter: withSectionAfter,
                before: { position, limit in try before(view, position, limit) },
                beforeSection: beforeSection.map { read in { key in try read(view, key) } }
            )
        }
        return placements
    }

    /// What the write did to each view, from the placements before and after it; views it
    /// did not touch (the item outside their filter both times) are left out.
    public func changes(old: [String: Placement], new: [String: Placement]) -> [String: ViewChange] {
        var changes: [String: ViewChange] = [:]
        for binding in Set(old.keys).union(new.keys) {
            switch (old[binding], new[binding]) {
            case (nil, nil):
                continue
            case (nil, let placement?):
                changes[binding] = ViewChange(operation: .insert, placement: placement)
            case (.some, nil):
                changes[binding] = ViewChange(operation: .delete, placement: nil)
            case (let before?, let placement?):
                changes[binding] =
                    before.isSamePlace(as: placement)
                    ? ViewChange(operation: .update, placement: nil)
                    : ViewChange(operation: .move, placement: placement)
            }
        }
        return changes
    }

    /// Every slice of every view that `item` can be read in (its own scope's only).
    func slices(of item: Item) -> [View] {
        let scope = scopeField.map { (field: $0, value: item[$0]) }
        return views.flatMap { Slice.slices(of: item, in: $0, scope: scope) }
    }
}
