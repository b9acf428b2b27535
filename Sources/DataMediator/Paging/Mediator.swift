/// Turns a window of items into a page: groups consecutive items into sections, marks
/// the sections that began on an earlier page, and appends the synthetic loading section
/// with a signed cursor when more items follow.
///
/// This is the mediator of the client-side pattern: it sits between the list screen and
/// the data source and decides when there is more to load.
public struct Mediator: Sendable {
    /// The id and type of the loading section and its one item.
    public static let loadingID = "loading"

    /// The id of the synthetic section at the top of a page that more items precede, and
    /// of its one item, which holds the page's `prev`.
    public static let loadingBeforeID = "loading-before"

    private let signer: CursorSigner

    /// Creates a mediator that signs next-page cursors with `signer`.
    public init(signer: CursorSigner) {
        self.signer = signer
    }

    /// What lies past one end of a page.
    public enum Edge: Sendable, Hashable {
        /// Nothing: the page starts (or ends) the view, and has no cursor that way.
        case end
        /// More items: the page offers them with a loading section and a cursor.
        case more
        /// Items the page's reader already holds (or that may have gone since): a cursor,
        /// no loading section.
        case held
    }

    /// Where an empty page was read from, so its cursors still lead on: the position, and
    /// whether the items past the page on the other side include the one at it.
    public struct Anchor: Sendable, Hashable {
        /// The position the page was read from.
        public let position: Position
        /// Whether the other side's items include the one at ``position``.
        public let includesItem: Bool

        /// Creates an anchor.
        public init(position: Position, includesItem: Bool) {
            self.position = position
            self.includesItem = includesItem
        }
    }

    /// Builds a page of `items` (in view order): groups them into sections, marks the first
    /// one `continues` when it is `continuing`'s, and adds the loading sections and cursors
    /// its edges call for: `loading-before` at the top and `prev` when more items precede,
    /// `loading` at the end and `next` when more follow (API.md, "Both directions").
    ///
    /// - Parameters:
    ///   - continuing: the section id of the item just before the page, if any.
    ///   - before: what precedes the page; `prev` is null only at ``Edge/end``.
    ///   - after: what follows it; `next` is null only at ``Edge/end``.
    ///   - anchor: for an empty page, where its cursors lead from.
    public func page(
        list: String,
        view: View,
        presenter: any Presenter,
        limit: Int,
        items shown: [Item],
        version: Int64,
        continuing: String?,
        before: Edge,
        after: Edge,
        anchor: Anchor? = nil
    ) -> Page {
        let cells = presenter.cells(for: shown)
        let sectionIDs = view.sectionIDs(of: shown)
        var sections: [PageSection] = []
        var prev: String?
        if before != .end, let position = shown.first.map(view.position(of:)) ?? anchor?.position {
            let cursor = Cursor(
                list: list,
                view: view.typedCursorBinding,
                position: position,
                inclusive: shown.isEmpty && anchor?.includesItem == true,
                backward: true,
                version: version
            )
            let token = signer.sign(cursor) { shown.count > 1 ? view.position(of: shown[1]) : nil }
            prev = token
            if before == .more { sections.append(Self.loadingSection(Self.loadingBeforeID, key: "prev", token)) }
        }
        // Each run of equal section ids (the same bytes, ``ExactText``) becomes a section;
        // its cells are copied once.
        var start = 0
        while start < shown.count {
            let id = sectionIDs[start]
            var end = start + 1
            while end < shown.count, ExactText(sectionIDs[end]) == ExactText(id) { end += 1 }
            sections.append(
                PageSection(
                    id: id,
                    kind: .items,
                    // A title is formed once per section, from its first item.
                    title: view.section(of: shown[start]).title,
                    continues: start == 0 && id.isExactly(continuing),
                    items: Array(cells[start..<end])
                )
            )
            start = end
        }
        var next: String?
        if after != .end, let position = shown.last.map(view.position(of:)) ?? anchor?.position {
            let cursor = Cursor(
                list: list,
                view: view.typedCursorBinding,
                position: position,
                inclusive: shown.isEmpty && anchor?.includesItem == true,
                version: version
            )
            let token = signer.sign(cursor) { shown.count > 1 ? view.position(of: shown[shown.count - 2]) : nil }
            next = token
            if after == .more { sections.append(Self.loadingSection(Self.loadingID, key: "next", token)) }
        }
        return Page(
            list: list,
            view: view.name,
            limit: limit,
            version: version,
            sections: sections,
            next: next,
            prev: prev
        )
    }

    /// A synthetic loading section whose one item holds a cursor under `key`.
    private static func loadingSection(_ id: String, key: String, _ token: String) -> PageSection {
        var data = JSONWriter(capacity: token.utf8.count + 16)
        data.raw("{")
        data.write(key)
        data.raw(":")
        data.write(token)
        data.raw("}")
        let loading = Cell(id: id, type: Cell.loadingType, rev: "0", dataJSON: data.bytes)
        return PageSection(id: id, kind: .loading, title: nil, continues: false, items: [loading])
    }
}
