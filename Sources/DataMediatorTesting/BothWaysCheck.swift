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

    /// Checks the assembled pages: `continues` across their seams, and their items and
    /// merged sections equal to `forward`, a forward walk of the same view.
    public mutating func finish(expecting forward: WalkCheck) {
        var merged: [(id: String, title: String?, count: Int)] = []
        var items: [String] = []
        for (index, page) in pages.enumerated() {
            let data = page.sections.filter { $0.kind == .items }
            for (place, section) in data.enumerated() {
                let carriesOn = place == 0 && merged.last?.id == section.id
                if section.continues != carriesOn {
                    violations.append(
                        "page \(index + 1) of \(pages.count): section \(section.id) has continues "
                            + "\(section.continues), expected \(carriesOn)"
                    )
                }
                if carriesOn, let last = merged.indices.last {
                    merged[last].count += section.items.count
                } else {
                    merged.append((section.id, section.title, section.items.count))
                }
                items += section.items.map(\.id)
            }
        }
        let expected = forward.items.map(\.id)
        if items != expected {
            let first = zip(items, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            violations.append(
                "assembled \(items.count) items, the forward walk \(expected.count); first difference at "
                    + (first.map(String.init) ?? "the end")
            )
        }
        let walked = forward.sections.map { "\($0.id) \($0.title ?? "-") \($0.count)" }
        let assembled = merged.map { "\($0.id) \($0.title ?? "-") \($0.count)" }
        if walked != assembled {
            violations.append("assembled sections \(assembled.prefix(5))... differ from \(walked.prefix(5))...")
        }
    }

    private mutating func checkEdges(_ page: Page, label: String, backward: Bool, anchored: Bool) {
        let loading = page.sections.enumerated().filter { $0.element.kind == .loading }
        let before = loading.filter { $0.element.id == Mediator.loadingBeforeID }
        let after = loading.filter { $0.element.id == Mediator.loadingID }
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
        var check = BothWaysCheck()
        let limitText = limit.map(String.init)
        let first = try await adapter.page(view: view, limit: limitText, cursor: nil, around: id, slice: slice)
        check.start(first, around: id, precedingCount: forward.items.firstIndex { $0.id == id } ?? 0)
        var prev = first.prev
        while let cursor = prev, check.pageCount < 100_000 {
            let page = try await adapter.page(view: view, limit: limitText, cursor: cursor, slice: slice)
            check.prepend(page)
            prev = page.prev
        }
        var next = first.next
        while let cursor = next, check.pageCount < 100_000 {
            let page = try await adapter.page(view: view, limit: limitText, cursor: cursor, slice: slice)
            check.append(page)
            next = page.next
        }
        check.finish(expecting: forward)
        return check
    }
}
