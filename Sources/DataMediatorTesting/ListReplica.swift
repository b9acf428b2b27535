import DataMediator

/// A client's copy of one view, as a list screen holds it: sections of cells built from
/// pages, kept current by applying changes by stable id, the way a table view applies
/// batch updates.
///
/// While pages are loaded, the replica holds the view up to its last loaded item (the
/// boundary). A change names the neighbour it goes after; a change whose place lies past
/// the boundary is left for the pages still to come. When the boundary item itself was
/// changed, a place right after the last held item cannot be told apart from one past the
/// boundary; the item is put there, and a later page that shows it (or its own later
/// change) puts it right.
public struct ListReplica: Sendable {
    /// One section: its id and cells, in order.
    public struct Section: Sendable, Hashable {
        /// The section's id.
        public var id: String
        /// The cells, in order.
        public var cells: [Cell]
    }

    /// The sections, in order.
    public private(set) var sections: [Section] = []
    /// The last item loaded, while more pages follow; nil once the walk is complete.
    private var boundary: String?
    /// Whether a change moved or removed the boundary item since its page.
    private var boundaryChanged = false
    /// How often a change named a neighbour (`after` or `section_after`) that the
    /// replica, holding the whole view, did not hold; with a correct feed this stays 0.
    public private(set) var unknownNeighbours = 0

    /// Creates an empty replica.
    public init() {}

    /// A replica built as a client that loaded `pages` (a whole walk, in order, read while
    /// writes went on) and then fetched `changes` since the first page's version: each
    /// change is applied at its place in version order among the pages.
    public static func replaying(pages: [Page], changes: [ChangeSet.Entry]) -> ListReplica {
        var replica = ListReplica()
        var pending = changes[...]
        for page in pages {
            while let change = pending.first, change.version <= page.version {
                replica.apply(change)
                pending = pending.dropFirst()
            }
            replica.add(page)
        }
        for change in pending { replica.apply(change) }
        return replica
    }

    /// Appends a page: data sections in order, a continued section joined to the last one.
    /// Items it shows that the replica already holds move to where the page shows them; held
    /// items after the first of those that the page does not show lie past the page (changes
    /// put them after a changed boundary) and are let go, for the pages after it to bring.
    public mutating func add(_ page: Page) {
        let items = page.sections.filter { $0.kind == .items }
        let shown = Set(items.flatMap(\.items).map { ExactText($0.id) })
        cut: for section in sections.indices {
            guard let row = sections[section].cells.firstIndex(where: { shown.contains(ExactText($0.id)) }) else {
                continue
            }
            sections.removeSubrange((section + 1)...)
            sections[section].cells.removeSubrange(row...)
            if sections[section].cells.isEmpty { sections.remove(at: section) }
            break cut
        }
        // Sections put after the page's first one (by changes that could not tell) lie past
        // the boundary: their items come on this page or later ones.
        if let first = items.first, let index = sections.firstIndex(where: { $0.id.isExactly(first.id) }) {
            sections.removeSubrange((index + 1)...)
        }
        for section in items {
            if let last = sections.indices.last, sections[last].id.isExactly(section.id) {
                sections[last].cells += section.items
            } else {
                sections.append(Section(id: section.id, cells: section.items))
            }
        }
        boundary = page.next == nil ? nil : (page.items.last?.id ?? boundary)
        boundaryChanged = false
    }

    /// Applies one change.
    public mutating func apply(_ change: ChangeSet.Entry) {
        let id = change.cell?.id ?? change.id
        if id.isExactly(boundary), change.operation != .update { boundaryChanged = true }
        switch change.operation {
        case .reload:
            sections = []
        case .delete:
            remove(id: id)
        case .update:
            if let cell = change.cell { replace(cell) }
        case .insert, .move:
            guard let cell = change.cell, let placement = change.placement else { return }
            remove(id: cell.id)
            place(cell, at: placement)
        }
    }

    /// The ids of sections and cells with each cell's revision, for comparing replicas.
    public var outline: [String] {
        sections.flatMap { section in
            ["[\(section.id)]"] + section.cells.map { "\($0.id)@\($0.rev)" }
        }
    }

    /// Puts a cell where a change places it, unless that is past the boundary.
    private mutating func place(_ cell: Cell, at placement: Placement) {
        let walking = boundary != nil
        if let index = sections.firstIndex(where: { $0.id.isExactly(placement.section) }) {
            guard let after = placement.after else {
                sections[index].cells.insert(cell, at: 0)
                return
            }
            guard let row = sections[index].cells.firstIndex(where: { $0.id.isExactly(after) }) else {
                // The neighbour lies past the boundary (or, with the whole view held, is unknown).
                if !walking { unknownNeighbours += 1 }
                return
            }
            let isLastHeld = index == sections.count - 1 && row == sections[index].cells.count - 1
            if walking, isLastHeld, !boundaryChanged { return }
            sections[index].cells.insert(cell, at: row + 1)
            return
        }
        // An item after another of a section not held lies past the boundary (or, with the
        // whole view held, names an unknown neighbour).
        guard placement.after == nil else {
            if !walking { unknownNeighbours += 1 }
            return
        }
        var index = 0
        if let previous = placement.sectionAfter {
            guard let found = sections.firstIndex(where: { $0.id.isExactly(previous) }) else {
                if !walking { unknownNeighbours += 1 }
                return
            }
            if walking, found == sections.count - 1, !boundaryChanged { return }
            index = found + 1
        }
        sections.insert(Section(id: placement.section, cells: [cell]), at: index)
    }

    private mutating func replace(_ cell: Cell) {
        for index in sections.indices {
            if let row = sections[index].cells.firstIndex(where: { $0.id.isExactly(cell.id) }) {
                sections[index].cells[row] = cell
            }
        }
    }

    private mutating func remove(id: String) {
        for index in sections.indices.reversed() {
            sections[index].cells.removeAll { $0.id.isExactly(id) }
            if sections[index].cells.isEmpty { sections.remove(at: index) }
        }
    }
}
