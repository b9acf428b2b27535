/// Turns a window of items into a page: groups consecutive items into sections, marks
/// the sections that began on an earlier page, and appends the synthetic loading section
/// with a signed cursor when more items follow.
///
/// This is the mediator of the client-side pattern: it sits between the list screen and
/// the data source and decides when there is more to load.
public struct Mediator: Sendable {
    /// The id and type of the loading section and its one item.
    public static let loadingID = "loading"

    private let signer: CursorSigner

    /// Creates a mediator that signs next-page cursors with `signer`.
    public init(signer: CursorSigner) {
        self.signer = signer
    }

    /// Builds a page.
    ///
    /// - Parameters:
    ///   - items: the view's items from the page's start, in view order; up to
    ///     `limit + 1` of them, the extra one only telling that more follow.
    ///   - continuing: the section id of the item just before the page, if any.
    public func page(
        list: String,
        view: View,
        presenter: any Presenter,
        limit: Int,
        items: [Item],
        version: Int64,
        continuing: String?
    ) -> Page {
        let hasMore = items.count > limit
        let shown = hasMore ? Array(items.prefix(limit)) : items
        let cells = presenter.cells(for: shown)
        let sectionIDs = view.sectionIDs(of: shown)
        // Each run of equal section ids becomes a section; its cells are copied once.
        var sections: [PageSection] = []
        var start = 0
        while start < shown.count {
            let id = sectionIDs[start]
            var end = start + 1
            while end < shown.count, sectionIDs[end] == id { end += 1 }
            sections.append(
                PageSection(
                    id: id,
                    kind: .items,
                    // A title is formed once per section, from its first item.
                    title: view.section(of: shown[start]).title,
                    continues: start == 0 && id == continuing,
                    items: Array(cells[start..<end])
                )
            )
            start = end
        }
        var next: String?
        if hasMore, let last = shown.last {
            let cursor = Cursor(
                list: list,
                view: view.cursorBinding,
                position: view.position(of: last),
                inclusive: false,
                continuing: sectionIDs.last
            )
            let token = signer.sign(cursor)
            next = token
            var data = JSONWriter(capacity: token.utf8.count + 16)
            data.raw("{\"next\":")
            data.write(token)
            data.raw("}")
            let loading = Cell(id: Self.loadingID, type: Cell.loadingType, rev: "0", dataJSON: data.bytes)
            sections.append(
                PageSection(id: Self.loadingID, kind: .loading, title: nil, continues: false, items: [loading])
            )
        }
        return Page(list: list, view: view.name, limit: limit, version: version, sections: sections, next: next)
    }
}
