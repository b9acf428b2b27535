/// The loaded part of one view, kept current by pages and changes: the logic of a list
/// session without its I/O.
///
/// The session holds the view from its first loaded item (the top boundary, while items
/// precede it) to its last loaded item (the bottom boundary, while items follow it). A
/// change names the neighbour it goes after; a change whose place lies outside the
/// boundaries is left for the pages still to come (those pages show it). When a boundary
/// item itself was moved or deleted, a place right beside the held items cannot be told
/// apart from one past the boundary: the item is put there, and a later page that shows it
/// (or its own later change) puts it right; the next page read forward lets go of the held
/// items it shows to lie past itself. (The test side's `ListReplica` does the same for
/// forward walks.)
struct LoadedList: Sendable {
    var sections: [ListSection] = []
    var next: String?
    var prev: String?
    var list: String
    var view = ""
    /// Sections a change created: their titles are unknown until a page (or a lookup) shows them.
    private(set) var untitled: Set<ExactID> = []
    private var bottom: String?
    private var top: String?
    private var bottomChanged = false
    private var topChanged = false

    /// The first held item, when the top boundary item was moved or deleted since the page
    /// above was read: `prev` reads from that item's old place, and a change may have put an
    /// item between it and the first held one, so the page above is read around this item.
    var reanchor: String? { topChanged && prev != nil ? sections.first?.items.first?.id : nil }

    /// How many items are held.
    var itemCount: Int { sections.reduce(0) { $0 + $1.items.count } }

    /// Whether a page read around `anchor` (``reanchor``) joins the held items: the anchor
    /// is still the first held item and the items the page shows after it are the ones held
    /// after it, in order, as far as both go. Not so when a change put the anchor at the top
    /// though it lies further up (the top boundary item had gone, so the change could not
    /// tell): prepended, the page would leave out the items between it and the held ones,
    /// and no later page would read them; nor when a change moved the anchor down while the
    /// page was read: prepended, the page would put it back above the items it passed. A
    /// page that shows nothing after the anchor while items are held after it (a page of
    /// one item) cannot tell, and is taken as not joining.
    func joins(_ page: PageBody, at anchor: String) -> Bool {
        let held = sections.flatMap(\.items)
        let shown = page.dataSections.flatMap(\.items)
        guard let heldAnchor = held.firstIndex(where: { $0.id.isExactly(anchor) }),
            let shownAnchor = shown.firstIndex(where: { $0.id.isExactly(anchor) }),
            heldAnchor == 0
        else { return false }
        let shownAfter = shown[(shownAnchor + 1)...]
        let heldAfter = held[(heldAnchor + 1)...]
        guard !shownAfter.isEmpty || heldAfter.isEmpty else { return false }
        return zip(shownAfter, heldAfter).allSatisfy { $0.id.isExactly($1.id) }
    }

    init(list: String) {
        self.list = list
    }

    /// Replaces everything with one page (a first page, a reload, an around page).
    mutating func replace(with page: PageBody) {
        view = page.view
        sections = []
        untitled = []
        for section in page.dataSections { join(section) }
        next = page.next
        prev = page.prev
        bottom = page.next == nil ? nil : sections.last?.items.last?.id
        top = page.prev == nil ? nil : sections.first?.items.first?.id
        bottomChanged = false
        topChanged = false
    }

    /// Appends a page read forward: a continued section joins the last one; items it shows
    /// that are held move to where it shows them.
    ///
    /// Held items that follow the first held item the page shows lie past the page when the
    /// page does not show them: changes put them after a moved or deleted bottom boundary, the
    /// page reads on from that boundary's place, and it shows a run of the view. They are let
    /// go, to be read by the pages after it, so what is held stays in the view's order.
    mutating func append(_ page: PageBody) {
        let incoming = page.dataSections
        let shown = Set(incoming.flatMap(\.items).map { ExactID($0.id) })
        // Held items the page shows go too: the page puts them where it shows them.
        if let cut = firstHeld(of: shown) { removeFrom(section: cut.section, row: cut.row) }
        // Sections put after the page's first one (by changes that could not tell) lie past
        // the boundary: their items come on this page or later ones.
        if let first = incoming.first, let index = sections.firstIndex(where: { $0.id.isExactly(first.id) }) {
            sections.removeSubrange((index + 1)...)
        }
        for section in incoming { join(section) }
        next = page.next
        bottom = page.next == nil ? nil : (incoming.last?.items.last?.id ?? bottom)
        bottomChanged = false
        if sections.isEmpty { top = nil }
    }

    /// Prepends a page read backward: its last section joins the first held one.
    mutating func prepend(_ page: PageBody) {
        let incoming = page.dataSections
        for item in incoming.flatMap(\.items) { remove(id: item.id) }
        if let last = incoming.last, let index = sections.firstIndex(where: { $0.id.isExactly(last.id) }) {
            sections.removeSubrange(..<index)
        }
        for section in incoming.reversed() {
            if let first = sections.first, first.id.isExactly(section.id) {
                sections[0].items.insert(contentsOf: section.items, at: 0)
                adoptTitle(of: section, at: 0)
            } else {
                untitled.remove(ExactID(section.id))
                sections.insert(section, at: 0)
            }
        }
        prev = page.prev
        top = page.prev == nil ? nil : (incoming.first?.items.first?.id ?? top)
        topChanged = false
    }

    /// Applies one change (not `reload`, which the session answers by reloading).
    mutating func apply(_ change: ListChange) {
        let id = change.itemID
        if change.op != .update {
            if id.isExactly(bottom) { bottomChanged = true }
            if id.isExactly(top) { topChanged = true }
        }
        switch change.op {
        case .reload:
            break
        case .delete:
            remove(id: id)
        case .update:
            if let item = change.item { replace(item) }
        case .insert, .move:
            guard let item = change.item, let section = change.section else { return }
            remove(id: item.id)
            place(item, in: section, sectionAfter: change.sectionAfter, after: change.after)
        }
    }

    private mutating func join(_ section: ListSection) {
        if let last = sections.indices.last, sections[last].id.isExactly(section.id) {
            sections[last].items += section.items
            adoptTitle(of: section, at: last)
        } else {
            untitled.remove(ExactID(section.id))
            sections.append(section)
        }
    }

    /// Puts an item where a change places it, unless that is outside the boundaries.
    private mutating func place(_ item: ListItem, in sectionID: String, sectionAfter: String?, after: String?) {
        let openBelow = next != nil && !bottomChanged
        let openAbove = prev != nil && !topChanged
        if let index = sections.firstIndex(where: { $0.id.isExactly(sectionID) }) {
            guard let after else {
                // The head of the first held section lies before the first held item.
                if index == 0, openAbove { return }
                sections[index].items.insert(item, at: 0)
                return
            }
            // A neighbour not held lies outside the boundaries.
            guard let row = sections[index].items.firstIndex(where: { $0.id.isExactly(after) }) else { return }
            let isLastHeld = index == sections.count - 1 && row == sections[index].items.count - 1
            if isLastHeld, openBelow { return }
            sections[index].items.insert(item, at: row + 1)
            return
        }
        // An item after another of a section not held lies past items not held.
        guard after == nil else { return }
        var index = 0
        if let sectionAfter {
            guard let found = sections.firstIndex(where: { $0.id.isExactly(sectionAfter) }) else { return }
            if found == sections.count - 1, openBelow { return }
            index = found + 1
        } else if openAbove {
            return
        }
        // The title is unknown until a page shows the section; changes do not carry it.
        sections.insert(ListSection(id: sectionID, title: nil, items: [item]), at: index)
        untitled.insert(ExactID(sectionID))
    }

    /// Sets the title of a section a change created, once known.
    mutating func setTitle(_ title: String?, of sectionID: String) {
        guard untitled.remove(ExactID(sectionID)) != nil,
            let index = sections.firstIndex(where: { $0.id.isExactly(sectionID) })
        else { return }
        sections[index].title = title
    }

    private mutating func adoptTitle(of section: ListSection, at index: Int) {
        if untitled.remove(ExactID(section.id)) != nil { sections[index].title = section.title }
    }

    private mutating func replace(_ item: ListItem) {
        for index in sections.indices {
            if let row = sections[index].items.firstIndex(where: { $0.id.isExactly(item.id) }) {
                sections[index].items[row] = item
            }
        }
    }

    /// Where the first held item of `ids` is, in the held order.
    private func firstHeld(of ids: Set<ExactID>) -> (section: Int, row: Int)? {
        for section in sections.indices {
            if let row = sections[section].items.firstIndex(where: { ids.contains(ExactID($0.id)) }) {
                return (section, row)
            }
        }
        return nil
    }

    /// Lets go of every held item from `row` of `section` on.
    private mutating func removeFrom(section: Int, row: Int) {
        for later in sections[(section + 1)...] { untitled.remove(ExactID(later.id)) }
        sections.removeSubrange((section + 1)...)
        sections[section].items.removeSubrange(row...)
        if sections[section].items.isEmpty { untitled.remove(ExactID(sections.remove(at: section).id)) }
    }

    private mutating func remove(id: String) {
        for index in sections.indices.reversed() {
            sections[index].items.removeAll { $0.id.isExactly(id) }
            if sections[index].items.isEmpty { untitled.remove(ExactID(sections.remove(at: index).id)) }
        }
    }
}
