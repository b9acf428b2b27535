/// A place to continue a view from: the keyset position, the direction to read in, and
/// the list and view it belongs to.
///
/// It holds nothing of what was around the position when it was made: a page read from it
/// learns from the items as they are then whether anything precedes it and whether its
/// first section began before it (API.md, rules 2 and 8).
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
    /// Whether the page holds the items before the position (a page's `prev`) rather than
    /// the items after it.
    public let backward: Bool
    /// The version of the page the cursor came from, nil for none (a cursor of an earlier
    /// release, or one that stands for no page, as a composite's `more` cell's): a page read
    /// from it is never older, so a walk that moves between replicas whose reads lag
    /// differently does not go back in time (``ListAdapter/page(view:limit:cursor:around:slice:)``).
    public let version: Int64?
    /// The sort keys the position holds only the first bytes of (``AbridgedKey``), by their
    /// index, each with the digest of the whole key; empty when it holds every key whole.
    public let abridged: [Int: [UInt8]]

    /// Creates a cursor.
    public init(
        list: String,
        view: String,
        position: Position,
        inclusive: Bool,
        backward: Bool = false,
        version: Int64? = nil,
        abridged: [Int: [UInt8]] = [:]
    ) {
        self.list = list
        self.view = view
        self.position = position
        self.inclusive = inclusive
        self.backward = backward
        self.version = version
        self.abridged = abridged
    }

    /// The same cursor bound to `view` (a binding in another form).
    func bound(to view: String) -> Cursor {
        with(view: view, position: position, abridged: abridged)
    }

    /// The same cursor at `position`, its keys abridged as `abridged` says.
    func with(view: String? = nil, position: Position, abridged: [Int: [UInt8]]) -> Cursor {
        Cursor(
            list: list,
            view: view ?? self.view,
            position: position,
            inclusive: inclusive,
            backward: backward,
            version: version,
            abridged: abridged
        )
    }
}
