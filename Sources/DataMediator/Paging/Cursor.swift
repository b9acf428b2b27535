/// A place to continue a view from: the keyset position, the direction to read in, the
/// list and view it belongs to, and the section a page starting there continues.
///
/// Clients see cursors only as opaque signed tokens (``CursorSigner``).
public struct Cursor: Sendable, Hashable {
    /// The list the cursor was issued for.
    public let list: String
    /// The view the cursor was issued for.
    public let view: String
    /// The keyset position.
    public let position: Position
    /// Whether the page holds the position's item (a located item) rather than starting
    /// past it.
    public let inclusive: Bool
    /// The id of the section the item before the page belongs to, so the page's first
    /// section `continues` when it is the same; nil when nothing precedes the page. A
    /// backward cursor holds none: its page reads the item before it to know.
    public let continuing: String?
    /// Whether the page holds the items before the position (a page's `prev`) rather than
    /// the items after it.
    public let backward: Bool
    /// Whether nothing preceded the position's item when the cursor was made (a located
    /// item's cursor at the view's first item): its page then has no `prev`.
    public let startsView: Bool

    /// Creates a cursor.
    public init(
        list: String,
        view: String,
        position: Position,
        inclusive: Bool,
        continuing: String?,
        backward: Bool = false,
        startsView: Bool = false
    ) {
        self.list = list
        self.view = view
        self.position = position
        self.inclusive = inclusive
        self.continuing = continuing
        self.backward = backward
        self.startsView = startsView
    }
}
