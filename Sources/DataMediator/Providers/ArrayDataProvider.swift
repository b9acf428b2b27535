/// A provider over items held in memory, sorted once per view and per slice of a view.
///
/// Used for data given in the config or read from files, and as the reference the store
/// providers are checked against: it orders, filters and sections exactly as they must.
public struct ArrayDataProvider: DataProvider, SectionInfoProvider {
    /// One view's items, in order, with what locating and counting need.
    struct Ordering: Sendable, Equatable {
        /// An item's section: its id and the key its count is listed under.
        struct Place: Sendable, Hashable {
            let id: String
            let key: JSONValue
        }

        var items: [Item] = []
        var positions: [Position] = []
        var places: [Place] = []
        var indexByID: [ExactText: Int] = [:]
        var sectionIndex: [Int] = []
        var itemIndex: [Int] = []
        var counts: [SectionCounts.Entry] = []

        /// Works out the ids' indexes and the sections' counts again from the items, their
        /// places and their order.
        mutating func derive(idField: String) {
            indexByID = Dictionary(minimumCapacity: items.count)
            sectionIndex = []
            itemIndex = []
            counts = []
            sectionIndex.reserveCapacity(items.count)
            itemIndex.reserveCapacity(items.count)
            for index in items.indices {
                indexByID[ExactText(items[index][idField].idString)] = index
                let place = places[index]
                if index > 0, ExactText(place.id) == ExactText(places[index - 1].id), let last = counts.indices.last {
                    counts[last] = SectionCounts.Entry(key: counts[last].key, count: counts[last].count + 1)
                    itemIndex.append(itemIndex[index - 1] + 1)
                } else {
                    counts.append(SectionCounts.Entry(key: place.key, count: 1))
                    itemIndex.append(0)
                }
                sectionIndex.append(counts.count - 1)
            }
        }

        /// Puts `item` at its place in `view`'s order, found by binary search.
        mutating func insert(_ item: Item, in view: View) {
            let position = view.position(of: item)
            var low = 0
            var high = positions.count
            while low < high {
                let middle = (low + high) / 2
                if view.compare(positions[middle], position) < 0 { low = middle + 1 } else { high = middle }
            }
            items.insert(item, at: low)
            positions.insert(position, at: low)
            places.insert(ArrayDataProvider.place(of: item, in: view), at: low)
        }

        /// Takes the item at `index` out.
        mutating func remove(at index: Int) {
            items.remove(at: index)
            positions.remove(at: index)
            places.remove(at: index)
        }
    }

    private let idField: String
    private let version: Int64
    /// Each view's and slice's order, keyed by its binding.
    let orderings: [String: Ordering]

    /// Creates a provider over `items` for `views`; `idField` names each item's unique id,
    /// `scopeField` the field of the list's scope, if it has one.
    ///
    /// Records whose id repeats one seen before are dropped, so ids stay unique. Each slice
    /// a request can select (``Slice/slices(of:in:scope:)``) is sorted too, keyed by its
    /// binding.
    public init(items: [Item], idField: String, views: [View], scopeField: String? = nil, version: Int64 = 0) {
        self.idField = idField
        self.version = version
        var seen = Set<ExactText>()
        let unique = items.filter { seen.insert(ExactText($0[idField].idString)).inserted }
        var slices: [String: (view: View, items: [Item])] = [:]
        for view in views {
            if scopeField == nil, !view.parameters.contains(where: \.isRequired) {
                slices[view.binding] = (view, [])
            }
            for item in unique where view.includes(item) {
                let scope = scopeField.map { (field: $0, value: item[$0]) }
                for slice in Slice.slices(of: item, in: view, scope: scope) {
                    slices[slice.binding, default: (slice, [])].items.append(item)
                }
            }
        }
        self.orderings = slices.mapValues { Self.order($0.items, in: $0.view, idField: idField) }
    }

    /// Creates a provider of one view or slice of `items`, as it is given: the items it
    /// includes (its filter and slice), in its order, keyed by its binding. A store that
    /// keeps a query's result serves each slice asked for so, without ordering every other.
    public init(items: [Item], idField: String, only view: View, version: Int64 = 0) {
        self.idField = idField
        self.version = version
        var seen = Set<ExactText>()
        let unique = items.filter { view.includes($0) && seen.insert(ExactText($0[idField].idString)).inserted }
        self.orderings = [view.binding: Self.order(unique, in: view, idField: idField)]
    }

    private init(idField: String, version: Int64, orderings: [String: Ordering]) {
        self.idField = idField
        self.version = version
        self.orderings = orderings
    }

    private static func order(_ items: [Item], in view: View, idField: String) -> Ordering {
        let sorted = items.map { (view.position(of: $0), $0) }.sorted { view.compare($0.0, $1.0) < 0 }
        var ordering = Ordering()
        ordering.items = sorted.map(\.1)
        ordering.positions = sorted.map(\.0)
        ordering.places = ordering.items.map { place(of: $0, in: view) }
        ordering.derive(idField: idField)
        return ordering
    }

    /// `item`'s section in `view`.
    static func place(of item: Item, in view: View) -> Ordering.Place {
        Ordering.Place(id: view.section(of: item).id, key: view.section.map { $0.key(for: item[$0.field]) } ?? .null)
    }

    /// This provider at `version` with the item `id`, which was `old` (nil: new), now
    /// `item` (nil: taken out), made with the `views` and `scopeField` it was made with.
    ///
    /// Each order the item leaves or joins changes by a binary search and a pass over its
    /// items, not a sort: a list held in memory (``InMemoryDataProvider``) pays that on
    /// every write.
    public func replacing(
        _ old: Item?,
        with item: Item?,
        id: String,
        views: [View],
        scopeField: String? = nil,
        version: Int64
    ) -> ArrayDataProvider {
        func slices(of item: Item?, in view: View) -> [View] {
            guard let item, view.includes(item) else { return [] }
            return Slice.slices(of: item, in: view, scope: scopeField.map { (field: $0, value: item[$0]) })
        }
        var orderings = orderings
        var changed: Set<String> = []
        for view in views {
            for slice in slices(of: old, in: view) {
                guard let index = orderings[slice.binding]?.indexByID[ExactText(id)] else { continue }
                orderings[slice.binding]?.remove(at: index)
                changed.insert(slice.binding)
            }
            for slice in slices(of: item, in: view) {
                // The removal above left the ids' indexes stale; insert reads only positions.
                if let item { orderings[slice.binding, default: Ordering()].insert(item, in: slice) }
                changed.insert(slice.binding)
            }
        }
        for binding in changed { orderings[binding]?.derive(idField: idField) }
        return ArrayDataProvider(idField: idField, version: version, orderings: orderings)
    }

    private func ordering(of view: View) -> Ordering {
        orderings[view.binding] ?? Ordering()
    }

    /// The version the provider was made with; it never changes.
    public func currentVersion() async throws -> Int64 { version }

    /// Up to `limit` items after (or from) `start`, found by binary search on position.
    public func window(of view: View, from start: Position?, inclusive: Bool, limit: Int) async throws -> Window {
        let ordering = ordering(of: view)
        var low = 0
        if let start {
            var high = ordering.positions.count
            while low < high {
                let middle = (low + high) / 2
                let order = view.compare(ordering.positions[middle], start)
                if order < 0 || (order == 0 && !inclusive) { low = middle + 1 } else { high = middle }
            }
        }
        let end = min(ordering.items.count, low + max(0, limit))
        return Window(items: Array(ordering.items[low..<end]), version: version)
    }

    /// Up to `limit` items before (or at and before) `start`, nearest first, found by
    /// binary search on position.
    public func window(of view: View, before start: Position?, inclusive: Bool, limit: Int) async throws -> Window {
        Window(items: items(before: start, inclusive: inclusive, in: view, limit: limit), version: version)
    }

    /// Up to `limit` items of `view` before `position` (at or before it when `inclusive`;
    /// from the end when nil), nearest first.
    public func items(before position: Position?, inclusive: Bool = false, in view: View, limit: Int) -> [Item] {
        let ordering = ordering(of: view)
        var low = ordering.positions.count
        if let position {
            low = 0
            var high = ordering.positions.count
            while low < high {
                let middle = (low + high) / 2
                let order = view.compare(ordering.positions[middle], position)
                if order < 0 || (order == 0 && inclusive) { low = middle + 1 } else { high = middle }
            }
        }
        return Array(ordering.items[max(0, low - max(0, limit))..<low].reversed())
    }

    /// The item with `id` and its place in the view.
    public func locate(id: String, in view: View) async throws -> Location? {
        let ordering = ordering(of: view)
        guard let index = ordering.indexByID[ExactText(id)] else { return nil }
        return Location(
            item: ordering.items[index],
            position: index,
            sectionIndex: ordering.sectionIndex[index],
            itemIndex: ordering.itemIndex[index],
            version: version
        )
    }

    /// The view's sections with their counts.
    public func sectionCounts(of view: View) async throws -> SectionCounts {
        SectionCounts(entries: ordering(of: view).counts, version: version)
    }
}
