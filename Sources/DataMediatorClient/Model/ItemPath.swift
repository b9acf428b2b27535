/// An item's place in a snapshot: its section's index and its index within the section,
/// the pair UIKit's `IndexPath(item:section:)` (or `row:`) takes.
public struct ItemPath: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The section's index.
    public var section: Int
    /// The item's index within its section.
    public var item: Int

    /// Creates a path.
    public init(section: Int, item: Int) {
        self.section = section
        self.item = item
    }

    /// Orders paths as a list shows them: by section, then by item.
    public static func < (lhs: ItemPath, rhs: ItemPath) -> Bool {
        (lhs.section, lhs.item) < (rhs.section, rhs.item)
    }

    /// `section.item`, for messages.
    public var description: String { "\(section).\(item)" }
}

/// An item that moves: from its path in the snapshot before to its path in the one after.
public struct ItemMove: Sendable, Hashable {
    /// The item's id.
    public var id: String
    /// Its path in the snapshot before the update.
    public var from: ItemPath
    /// Its path in the snapshot after the update.
    public var to: ItemPath

    /// Creates a move.
    public init(id: String, from: ItemPath, to: ItemPath) {
        self.id = id
        self.from = from
        self.to = to
    }
}
