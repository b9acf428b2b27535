/// Where an item stands in a view: its section, the section just before that one, and the
/// item just before it within its section. A client places an inserted or moved item by it.
public struct Placement: Sendable, Hashable {
    /// The id of the item's section.
    public let section: String
    /// The id of the section just before the item's section; nil when it is the first.
    public let sectionAfter: String?
    /// The id of the item just before this one in its section; nil at the section's head.
    public let after: String?

    /// Creates a placement.
    public init(section: String, sectionAfter: String?, after: String?) {
        self.section = section
        self.sectionAfter = sectionAfter
        self.after = after
    }

    /// Whether two placements put the item at the same place (same section, same item before it).
    public func isSamePlace(as other: Placement) -> Bool {
        section.isExactly(other.section) && (after.map { $0.isExactly(other.after) } ?? (other.after == nil))
    }

    /// The placement of `item` in `view`, found from the items before it.
    ///
    /// - Parameters:
    ///   - withSectionAfter: whether to find ``sectionAfter`` when the item is not at its
    ///     section's head.
    ///   - before: up to `limit` items of the view strictly before a position, nearest first.
    ///   - beforeSection: the last item of the view before the first item of the section
    ///     with a given key (nil when that section is the view's first), for views whose
    ///     section field leads their sort; one read however long the section is. Without
    ///     it, ``sectionAfter`` is found by reading back over the section's items.
    public static func of(
        _ item: Item,
        in view: View,
        idField: String,
        withSectionAfter: Bool,
        before: (_ position: Position, _ limit: Int) throws -> [Item],
        beforeSection: ((_ key: JSONValue) throws -> Item?)? = nil
    ) throws -> Placement {
        let section = view.sectionID(of: item)
        guard let previous = try before(view.position(of: item), 1).first else {
            return Placement(section: section, sectionAfter: nil, after: nil)
        }
        let previousSection = view.sectionID(of: previous)
        if !previousSection.isExactly(section) {
            return Placement(section: section, sectionAfter: previousSection, after: nil)
        }
        let after = previous[idField].idString
        guard withSectionAfter, let rule = view.section else {
            return Placement(section: section, sectionAfter: nil, after: after)
        }
        if let beforeSection, view.sort.first?.field == rule.field {
            let last = try beforeSection(rule.key(for: item[rule.field]))
            let lastSection = last.map { view.sectionID(of: $0) }
            // A store whose order disagrees with the section keys falls back to the scan.
            if lastSection?.isExactly(section) != true {
                return Placement(section: section, sectionAfter: lastSection, after: after)
            }
        }
        return try Placement(
            section: section,
            sectionAfter: sectionBefore(section, from: previous, in: view, before: before),
            after: after
        )
    }

    /// The id of the first section before `section`, reading back from `last` (an item of
    /// `section`) in growing batches; nil when `section` is the view's first.
    private static func sectionBefore(
        _ section: String,
        from last: Item,
        in view: View,
        before: (_ position: Position, _ limit: Int) throws -> [Item]
    ) throws -> String? {
        var last = last
        var batch = 64
        while true {
            let items = try before(view.position(of: last), batch)
            if let other = items.lazy.map({ view.sectionID(of: $0) }).first(where: { !$0.isExactly(section) }) {
                return other
            }
            guard items.count == batch, let tail = items.last else { return nil }
            last = tail
            batch = min(batch * 4, 4096)
        }
    }
}
