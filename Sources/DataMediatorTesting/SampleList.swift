import DataMediator

/// A small list for tests, built to meet every awkward case: sort keys that tie, `null`
/// scores (first ascending, last descending), ids that hold `/` and non-ASCII letters,
/// sections of one item, a filter and a cell type taken from a field.
public enum SampleList {
    /// The list's name.
    public static let name = "sample"

    /// The list's items: `count` of them, the same for every call.
    public static func items(count: Int = 57) -> [Item] {
        let groups = ["alpha", "beta", "gamma", "delta", "épsilon"]
        let kinds = ["big", "small", "odd"]
        return (0..<count).map { index in
            let id: String
            switch index % 19 {
            case 3: id = "item/\(index)"
            case 7: id = "ítem-\(index)"
            default: id = "item-\(index < 10 ? "0" : "")\(index)"
            }
            let score: JSONValue = index % 6 == 0 ? .null : .integer(Int64((index * 37) % 23) - 5)
            // Group sizes differ on purpose; the last group has a single item.
            let group = index == count - 1 ? "zeta" : groups[(index * index) % groups.count]
            let day = 1 + (index * 7) % 9
            let created = "2026-11-0\(day)T\(10 + index % 10):00:00Z"
            return Item([
                "id": .string(id),
                "group": .string(group),
                "score": score,
                "created": .string(created),
                "kind": .string(kinds[index % kinds.count]),
                "title": .string("Item \"\(index)\"\n"),
            ])
        }
    }

    /// The groups of ``itemsWithNullAndEmptyGroups()``, in item order: NULL and `""` mixed,
    /// which pages show as one section, then `"a"`.
    public static let nullAndEmptyGroups: [JSONValue] = [
        .null, .string(""), .null, .string(""), .string("a"), .string("a"), .null,
    ]

    /// Seven items whose `group` is NULL, `""` or `"a"` (``nullAndEmptyGroups``).
    public static func itemsWithNullAndEmptyGroups() -> [Item] {
        items(count: nullAndEmptyGroups.count).enumerated().map { index, item in
            var item = item
            item["group"] = nullAndEmptyGroups[index]
            return item
        }
    }

    /// The list's views: `by_group` (default, sectioned), `by_day` (sectioned by day, with
    /// an optional parameter `kind`), `flat` (no sections) and `positive` (filtered, cell
    /// type from `kind`).
    public static let views: [View] = [
        View(
            name: "by_group",
            isDefault: true,
            sort: [SortKey("group"), SortKey("score", .descending)],
            idField: "id",
            section: SectionRule(field: "group", titleTemplate: "Group {key}"),
            cellType: .fixed("row"),
            fields: ["title", "group", "score"]
        ),
        View(
            name: "by_day",
            sort: [SortKey("created", .descending)],
            idField: "id",
            section: SectionRule(field: "created", grouping: .day),
            cellType: .fixed("row"),
            fields: ["title", "created"],
            parameters: [ViewParameter(name: "kind", field: "kind", type: .string, isRequired: false)]
        ),
        View(
            name: "flat",
            sort: [SortKey("score")],
            idField: "id",
            cellType: .fixed("row"),
            fields: ["title", "score"]
        ),
        View(
            name: "positive",
            sort: [SortKey("score", .descending)],
            idField: "id",
            filter: [FilterCondition(field: "score", op: .gt, value: .integer(0))],
            cellType: .field("kind", types: ["big", "small"], fallback: "other"),
            fields: ["title", "score", "kind"]
        ),
    ]

    /// The list's definition with page sizes 5 by default and 10 at most.
    public static let definition = ListDefinition(
        name: name,
        title: "Sample",
        idField: "id",
        views: views,
        limits: PageLimits(defaultLimit: 5, maximumLimit: 10)
    )

    /// The items of a view in the view's order, computed independently of any provider:
    /// filter, then sort with the view's comparison.
    public static func expectedOrder(_ items: [Item], view: View) -> [Item] {
        items.filter(view.includes).sorted { view.compare(view.position(of: $0), view.position(of: $1)) < 0 }
    }

    /// The values of the `kind` parameter of `by_day`, each a slice of the list.
    public static let kinds = ["big", "small", "odd"]

    /// A secret for signing cursors in tests.
    public static let secret = Array("test-secret-of-enough-length".utf8)

    /// Walks every page of a view through an adapter and checks each rule of a page.
    public static func walk(
        _ adapter: ListAdapter,
        view: String?,
        limit: Int?,
        slice: SliceRequest = .whole
    ) async throws -> WalkCheck {
        var check = WalkCheck()
        var cursor: String?
        repeat {
            let page = try await adapter.page(view: view, limit: limit.map(String.init), cursor: cursor, slice: slice)
            check.add(page)
            cursor = page.next
        } while cursor != nil && check.pageCount < 100_000
        return check
    }
}
