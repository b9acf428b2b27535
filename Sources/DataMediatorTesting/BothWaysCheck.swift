import DataMediator

/// Checks a walk that opens a view at an item (`around`) and goes both ways to both ends,
/// against API.md's "Both directions and anchored loads", and collects every violation as
/// a sentence (an empty list means the walk is right).
///
/// Pages come in as a client gets them: the anchored page, then backward pages (each
/// prepended, through the `prev` of the page on top) and forward pages (each appended,
/// through the `next` of the last). Per page: a backward page has no trailing loading
/// section, the `loading-before` section first exactly when it has `prev` (holding it),
/// exactly `limit` items when it has `prev`, and a `next`; a forward page has no
/// `loading-before`, its `loading` section last exactly when it has `next`, and a `prev`;
/// the anchored page has both loading sections as its edges say and the item at index
/// `(limit - 1) / 2` (fewer when fewer precede). Once assembled (``finish(expecting:)``):
/// `continues` is true exactly on a page's first section when the page before it in the
/// view ends in that section, and the items and sections merged by id are the forward
/// walk's.
public struct BothWaysCheck {
    /// Every violation found, in the order found.
    public private(set) var violations: [String] = []
    /// The pages in view order, as the client holds them.
    public private(set) var pages: [Page] = []
    /// The number of pages read.
    public private(set) var pageCount = 0

    /// Creates a check of a walk opened at the item with `id`.
    public init() {}

    /// The anchored page: it holds the item with `id` at index `(limit - 1) / 2`, or at
    /// `precedingCount` when fewer precede it.
    public mutating func start(_ page: Page, around id: String, precedingCount: Int) {
        pageCount += 1
        let label = "around page"
        checkEdges(page, label: label, backward: false, anchored: true)
        let ids = page.items.map(\.id)
        let expected = min((page.limit - 1) / 2, precedingCount)
        if ids.firstIndex(of: id) != expected {
            violations.append(
                "\(label): item \(id) at \(ids.firstIndex(of: id).map(String.init) ?? "none"), not \(expected)"
            )
        }
        pages = [page]
    }

    /// A page read backward with the `prev` of the page on top, put on top.
    public mutating func prepend(_ page: Page) {
        pageCount += 1
        checkEdges(page, label: "backward page \(pageCount)", backward: true, anchored: false)
        pages.insert(page, at: 0)
    }

    /// A page read forward with the `next` of the last page, put last.
    public mutating func append(_ page: Page) {
        pageCount += 1
        checkEdges(page, label: "forward page \(pageCount)", backward: false, anchored: false)
        pages.append(page)
    }

    /// Checks the assembled pages against `forward`, a forward walk of the same view: their
    /// items are a stretch of it (all of it when the walk reached both ends: the top page
    /// without `prev`, the last without `next`), each item stands in the section the
    /// forward walk shows it in, and `continues` is true exactly on a page's first section
    /// when the item before that page, in the forward walk, is in the same section.
    public mutating func finish(expecting forward: WalkCheck) {
        var sectionOf: [(id: String, title: String?)] = []
        for section in forward.sections {
            sectionOf += Array(repeating: (section.id, section.title), count: section.count)
        }
        let expected = forward.items.map(\.id)
        let assembled = pages.flatMap(\.items).map(\.id)
        guard let first = assembled.first else {
            if !expected.isEmpty { violations.append("the walk served nothing of \(expected.count) items") }
            return
        }
        guard let start = expected.firstIndex(of: first), start + assembled.count <= expected.count,
            Array(expected[start..<(start + assembled.count)]) == assembled
        else {
            let at = expected.firstIndex(of: first).map(String.init) ?? "none"
            violations.append(
                "the \(assembled.count) items assembled, from \(first) (at \(at)), are no stretch of the walk"
            )
            return
        }
        if pages.first?.prev == nil, start != 0 {
            violations.append("the top page has no prev but \(start) items precede")
        }
        if pages.last?.next == nil, start + assembled.count != expected.count {
            violations.append("the last page has no next but items follow")
        }
        var index = start
        for (number, page) in pages.enumerated() {
            for (place, section) in page.sections.filter({ $0.kind == .items }).enumerated() {
                let carriesOn = place == 0 && index > 0 && sectionOf[index - 1].id.isExactly(section.id)
                if section.continues != carriesOn {
                    violations.append(
                        "page \(number + 1) of \(pages.count): section \(section.id) has continues "
                            + "\(section.continues), expected \(carriesOn)"
                    )
                }
                for item in section.items {
                    if !sectionOf[index].id.isExactly(section.id) || sectionOf[index].title != section.title {
                        violations.append(
                            "item \(item.id) is in section \(section.id), the walk shows it in \(sectionOf[index].id)"
                        )
                    }
                    index += 1
                }
            }
        }
    }

    private mutating func checkEdges(_ page: Page, label: String, backward: Bool, anchored: Bool) {
        let loading = page.sections.enumerated().filter { $0.element.kind == .loading }
        let before = loading.filter { $0.element.id.isExactly(Mediator.loadingBeforeID) }
        let after = loading.filter { $0.element.id.isExactly(Mediator.loadingID) }
        if loading.count != before.count + after.count || before.count > 1 || after.count > 1 {
            violations.append("\(label): loading sections \(loading.map(\.element.id))")
        }
        let wantsBefore = (backward || anchored) && page.prev != nil
        if before.isEmpty == wantsBefore {
            violations.append(
                "\(label): loading-before section \(before.isEmpty ? "missing" : "present"), prev \(page.prev ?? "null")"
            )
        }
        if let (index, section) = before.first {
            if index != 0 { violations.append("\(label): loading-before section is not first") }
            checkLoading(section, key: "prev", cursor: page.prev, label: label)
        }
        let wantsAfter = !backward && page.next != nil
        if after.isEmpty == wantsAfter {
            violations.append(
                "\(label): loading section \(after.isEmpty ? "missing" : "present"), next \(page.next ?? "null")"
            )
        }
        if let (index, section) = after.first {
            if index != page.sections.count - 1 { violations.append("\(label): loading section is not last") }
            checkLoading(section, key: "next", cursor: page.next, label: label)
        }
        let count = page.items.count
        if count > page.limit { violations.append("\(label): holds \(count) items, above limit \(page.limit)") }
        if backward, page.prev != nil, count != page.limit {
            violations.append("\(label): has prev but holds \(count) items, not limit \(page.limit)")
        }
        if !backward, page.next != nil, count != page.limit {
            violations.append("\(label): has next but holds \(count) items, not limit \(page.limit)")
        }
        if backward, count > 0, page.next == nil { violations.append("\(label): a backward page without next") }
        if !backward, !anchored, page.prev == nil { violations.append("\(label): a forward page without prev") }
        for item in page.items where item.type == Cell.loadingType {
            violations.append("\(label): data item \(item.id) has type loading")
        }
    }

    private mutating func checkLoading(_ section: PageSection, key: String, cursor: String?, label: String) {
        guard section.continues == false, section.title == nil, section.items.count == 1,
            let item = section.items.first, item.id == section.id, item.type == Cell.loadingType, item.rev == "0",
            item.data == .object([key: cursor.map(JSONValue.string) ?? .null])
        else {
            violations.append(
                "\(label): \(section.id) section is not {title: null, continues: false, one item {\(key)}}"
            )
            return
        }
    }
}

extension BothWaysCheck {
    /// Opens a view at the item with `id` through `read` (which answers the page around an
    /// item, or the page a cursor leads to) and walks it both ways, at most `pages` pages
    /// each way, checking each page and the assembled stretch against `forward`.
    public static func walk(
        around id: String,
        forward: WalkCheck,
        pages: Int = 100_000,
        read: (_ cursor: String?, _ around: String?) async throws -> Page
    ) async throws -> BothWaysCheck {
        var check = BothWaysCheck()
        let first = try await read(nil, id)
        check.start(first, around: id, precedingCount: forward.items.firstIndex { $0.id.isExactly(id) } ?? 0)
        var prev = first.prev
        var count = 0
        while let cursor = prev, count < pages {
            let page = try await read(cursor, nil)
            check.prepend(page)
            prev = page.prev
            count += 1
        }
        var next = first.next
        count = 0
        while let cursor = next, count < pages {
            let page = try await read(cursor, nil)
            check.append(page)
            next = page.next
            count += 1
        }
        check.finish(expecting: forward)
        return check
    }
}

extension SampleList {
    /// Opens a view at the item with `id` and walks it both ways to both ends through an
    /// adapter, checking each page and the assembled list against `forward`.
    public static func walkBothWays(
        _ adapter: ListAdapter,
        view: String?,
        limit: Int?,
        around id: String,
        forward: WalkCheck,
        slice: SliceRequest = .whole
    ) async throws -> BothWaysCheck {
        try await BothWaysCheck.walk(around: id, forward: forward) { cursor, around in
            try await adapter.page(
                view: view,
                limit: limit.map(String.init),
                cursor: cursor,
                around: around,
                slice: slice
            )
        }
    }
}
