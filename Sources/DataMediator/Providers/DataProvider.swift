/// Where a list's items come from: windows of a view in order, and the place of one item
/// (the provider's `loadData`, `itemAtIndexPath` and `indexForItem`).
///
/// Providers page by keyset: a window starts at a position, never at an offset, so inserts
/// and deletes before it cannot make a client see an item twice or miss one. A window's
/// items and version come from one consistent snapshot of the source.
public protocol DataProvider: Sendable {
    /// Up to `limit` items of `view`, in the view's order, that come after `start`
    /// (at or after it when `inclusive`), from the beginning when `start` is nil.
    ///
    /// Only items that pass the view's filter are returned.
    func window(of view: View, from start: Position?, inclusive: Bool, limit: Int) async throws -> Window

    /// Up to `limit` items of `view` that come before `start` (at or before it when
    /// `inclusive`), nearest first: the view's order reversed, from its end when `start`
    /// is nil. A page read backward takes these and shows them in view order.
    ///
    /// It reads as a forward window does (by keyset, the same index backward), so a page
    /// read backward costs what one read forward costs.
    func window(of view: View, before start: Position?, inclusive: Bool, limit: Int) async throws -> Window

    /// The items on both sides of `start`: up to `from` items after it (at or after it
    /// when `inclusive`), in view order, and up to `before` of the rest before them,
    /// nearest first, read from one snapshot where the provider can.
    ///
    /// A page read with a forward cursor takes one item before it this way: whether
    /// anything precedes the page and whether its first section began before it are
    /// answered by the items as they are when the page is read (API.md, rules 2 and 8),
    /// not as they were when the cursor was made. The default reads the two windows, each
    /// in its own snapshot; a store answers it in one statement.
    func window(
        of view: View,
        at start: Position,
        inclusive: Bool,
        before: Int,
        from: Int
    ) async throws
        -> AnchoredWindow

    /// The items around the one with `id`: up to `before` items before it, nearest first,
    /// and up to `from` items from it on (the item first), read from one snapshot where
    /// the provider can; nil when no item with that id passes the view's filter.
    ///
    /// The default locates the item and reads the two windows; a store answers it in one
    /// transaction by the item's id, without placing it.
    func window(of view: View, around id: String, before: Int, from: Int) async throws -> AnchoredWindow?

    /// The item with `id` in `view` and its place there, or nil when no item with that
    /// id passes the view's filter.
    func locate(id: String, in view: View) async throws -> Location?

    /// The version of the provider's source now: what a window read now would carry.
    func currentVersion() async throws -> Int64
    /// Waits until the provider's reads reach `version`, one its source has reached (a read
    /// replica that lags its primary), and says how that went (``CatchUp``). A store's
    /// provider whose reads see every write at once answers ``CatchUp/notBehind``; one of
    /// no store, ``CatchUp/independent`` (the default).
    func catchUp(to version: Int64) async throws -> CatchUp

    /// Compares two positions of `view`'s items in view order (negative when `lhs` comes
    /// first, zero for the same place): what says where a cursor's position stands among
    /// items read again after writes. Most providers' positions are the sort keys
    /// (``View/compare(_:_:)``, the default); a composite's hold a child and that child's
    /// own position, compared as the child orders them.
    func compare(_ lhs: Position, _ rhs: Position, in view: View) -> Int

    /// `position`, read from a cursor whose keys a token carried abridged inside it (a
    /// composite's, which holds its child's position: ``AbridgedKey``), with those keys
    /// whole again, or widened to the side a page read `backward` or forward goes; the
    /// default returns it as it is (a position of sort keys is made whole by its list).
    func whole(_ position: Position, backward: Bool) async throws -> Position
}

/// Counts of a view's sections (the section info of the client-side pattern).
public protocol SectionInfoProvider: Sendable {
    /// The view's sections in order with the number of items in each; one entry with a
    /// `null` key for a view without sections, none for an empty view.
    ///
    /// The counts must equal what a walk of every window yields.
    func sectionCounts(of view: View) async throws -> SectionCounts
}

/// A window of a view, read from one snapshot.
public struct Window: Sendable, Hashable {
    /// The items, in view order.
    public let items: [Item]
    /// The source's change counter at the snapshot.
    public let version: Int64

    /// Creates a window.
    public init(items: [Item], version: Int64) {
        self.items = items
        self.version = version
    }
}

/// The items on both sides of one item of a view (``DataProvider/window(of:around:before:from:)``)
/// or of a position (``DataProvider/window(of:at:inclusive:before:from:)``).
public struct AnchoredWindow: Sendable, Hashable {
    /// The items before the item (or the position's side), nearest first.
    public let before: [Item]
    /// The item and the items after it (or those after the position), in view order.
    public let from: [Item]
    /// The source's change counter at the snapshot (the earliest, when read in several).
    public let version: Int64

    /// Creates an anchored window.
    public init(before: [Item], from: [Item], version: Int64) {
        self.before = before
        self.from = from
        self.version = version
    }
}

extension DataProvider {
    /// ``CatchUp/independent``: the reads are of no store (a store's provider says how its
    /// reads stand).
    public func catchUp(to version: Int64) async throws -> CatchUp { .independent }

    /// The position as it is.
    public func whole(_ position: Position, backward: Bool) async throws -> Position { position }

    /// Positions compared by the view's sort keys.
    public func compare(_ lhs: Position, _ rhs: Position, in view: View) -> Int {
        view.compare(lhs, rhs)
    }

    /// Reads the window before `start` (the items that the window from it leaves out) and
    /// the window from it, each in its own snapshot: the earlier version of the two, so
    /// that replaying the changes after it can only repeat a change the items already show.
    public func window(
        of view: View,
        at start: Position,
        inclusive: Bool,
        before: Int,
        from: Int
    ) async throws -> AnchoredWindow {
        let preceding = try await window(of: view, before: start, inclusive: !inclusive, limit: before)
        let following = try await window(of: view, from: start, inclusive: inclusive, limit: from)
        return AnchoredWindow(
            before: preceding.items,
            from: following.items,
            version: min(preceding.version, following.version)
        )
    }

    /// Locates the item and reads the windows on both sides of it, each in its own
    /// snapshot: the earliest version of the three, so that replaying the changes after it
    /// can only repeat a change the items already show.
    ///
    /// A write that moves the item between the reads would leave it out of the page, or
    /// not at its head: the three reads are made again (up to ``aroundReads`` times in all)
    /// until the window read from its place starts with it there.
    public func window(of view: View, around id: String, before: Int, from: Int) async throws -> AnchoredWindow? {
        var read: AnchoredWindow?
        for _ in 0..<aroundReads {
            guard let location = try await locate(id: id, in: view) else { return nil }
            let position = view.position(of: location.item)
            let preceding = try await window(of: view, before: position, inclusive: false, limit: before)
            let following = try await window(of: view, from: position, inclusive: true, limit: from)
            read = AnchoredWindow(
                before: preceding.items,
                from: following.items,
                version: min(location.version, preceding.version, following.version)
            )
            if let first = following.items.first, compare(view.position(of: first), position, in: view) == 0 {
                break
            }
        }
        return read
    }

    /// How many times ``window(of:around:before:from:)`` reads when writes keep moving the
    /// item between its reads; the last read is answered.
    var aroundReads: Int { 3 }
}

/// Where one item stands in a view.
public struct Location: Sendable, Hashable {
    /// The item.
    public let item: Item
    /// Its index among all items of the view.
    public let position: Int
    /// The index of its section among the view's sections.
    public let sectionIndex: Int
    /// Its index within its section.
    public let itemIndex: Int
    /// The source's change counter at the snapshot.
    public let version: Int64

    /// Creates a location.
    public init(item: Item, position: Int, sectionIndex: Int, itemIndex: Int, version: Int64) {
        self.item = item
        self.position = position
        self.sectionIndex = sectionIndex
        self.itemIndex = itemIndex
        self.version = version
    }
}

/// Item counts per section of a view.
public struct SectionCounts: Sendable, Hashable {
    /// One section: its key (as ``SectionRule/key(for:)`` derives it) and its item count.
    public struct Entry: Sendable, Hashable {
        /// The section key; `null` for a view without sections.
        public let key: JSONValue
        /// The number of items.
        public let count: Int
        /// The section's title, for views whose section rule reads titles from a field
        /// (``SectionRule/titleField``); otherwise the title is formed from the key.
        public let title: String?

        /// Creates an entry.
        public init(key: JSONValue, count: Int, title: String? = nil) {
            self.key = key
            self.count = count
            self.title = title
        }
    }

    /// The sections, in view order.
    public let entries: [Entry]
    /// The source's change counter at the snapshot.
    public let version: Int64

    /// Creates section counts.
    public init(entries: [Entry], version: Int64) {
        self.entries = entries
        self.version = version
    }

    /// Creates section counts from `entries` in view order, counting as one the neighbours
    /// whose keys a store tells apart but whose ids `rule` makes the same (NULL and `""`),
    /// as pages show them; the first of them gives the key.
    public init(merging entries: [Entry], by rule: SectionRule, version: Int64) {
        var merged: [Entry] = []
        for entry in entries {
            if let last = merged.last, rule.id(for: last.key).isExactly(rule.id(for: entry.key)) {
                merged[merged.count - 1] = Entry(key: last.key, count: last.count + entry.count, title: last.title)
            } else {
                merged.append(entry)
            }
        }
        self.init(entries: merged, version: version)
    }
}
