import DataMediator

/// Counts kept per stamp of the list's tables (``TableStamps``): an item's place and a
/// view's sections are answered from a ``ViewOutline`` read once per stamp, with at most
/// ``ViewOutline/longestGap`` rows counted per request.
extension SQLListReader {
    /// The stamp of the list's tables and the store's version, in the session's snapshot
    /// (one statement); nil for a list whose tables are not stamped.
    func stampAndVersion(_ session: any SQLSession) async throws -> (stamp: Int64, version: Int64)? {
        guard let stampAndVersionSQL else { return nil }
        let both = try await session.integers(stampAndVersionSQL)
        guard both.count == 2 else { throw DataMediatorError(.unavailable, "The store's version could not be read.") }
        return (both[0], both[1])
    }

    /// ``stampAndVersion(_:)`` of a list whose tables are stamped, for a result to keep.
    func keptStampAndVersion(_ session: any SQLSession) async throws -> (stamp: Int64, version: Int64) {
        guard let now = try await stampAndVersion(session) else {
            throw DataMediatorError(.unavailable, "The list's tables have no stamp.")
        }
        return now
    }

    /// The stamp of the list's tables now (one statement); nil when they are not stamped.
    func currentStamp() async throws -> Int64? {
        guard let stampSQL else { return nil }
        return try await transactions.readStatements { session in try await session.integer(stampSQL) }
    }

    /// The view's outline at the stamp of the tables now: kept, or read once for it, the
    /// caller waiting for the pass over the whole view; nil for tables with no stamp.
    /// Requests do not wait for it: see ``readOutlineInBackground(of:)``.
    func outline(of view: View) async throws -> ViewOutline? {
        guard let stamp = try await currentStamp() else { return nil }
        return try await outlines.value(view.binding, stamp: stamp) { try await readOutline(of: view) }
    }

    /// Starts reading the view's outline at `stamp` (the tables' now) in a task of its
    /// own, unless it is kept or one is being read for the view
    /// (``KeptResults/refresh(_:stamp:compute:)``): a request that finds no outline at the
    /// stamp (the first, or the first after a write the change log does not hold, which
    /// no outline is carried over: another program's, or an import) counts
    /// on the view's index instead of waiting for a pass over the whole view, and at most
    /// one such pass per view runs at a time.
    func readOutlineInBackground(of view: View, at stamp: Int64) {
        outlines.refresh(view.binding, stamp: stamp) { try await readOutline(of: view) }
    }

    /// The view's outline, read in one snapshot: its sections' counts and its marks.
    func readOutline(of view: View) async throws -> ViewOutline {
        try await transactions.read { session in
            // The stamp of this snapshot, which may be newer than the one asked for.
            ViewOutline(
                stamp: try await keptStampAndVersion(session).stamp,
                counts: try await countSections(of: view, session),
                view: view,
                marks: try await marks(of: view, session)
            )
        }
    }

    /// Every ``ViewOutline/spacing``-th item of the view from the first, numbered in one
    /// pass over the view in its order.
    private func marks(of view: View, _ session: any SQLSession) async throws -> [ViewOutline.Mark] {
        let statement = marksStatement(of: view)
        let rows = try await session.items(
            statement.sql,
            statement.arguments,
            layout: statement.layout,
            types: statement.layout.names.map { fieldTypes[$0] }
        )
        return rows.enumerated().map { index, item in
            ViewOutline.Mark(position: view.position(of: item), index: index * ViewOutline.spacing)
        }
    }

    /// The statement of ``marks(of:_:)``: it numbers the view's rows in order and reads the
    /// sort keys of every ``ViewOutline/spacing``-th one, and only the sort keys, which the
    /// view's index holds: the pass reads no table row (a covering index scan), where
    /// reading every column fetched each of the view's rows from the table.
    func marksStatement(of view: View) -> (sql: String, arguments: [JSONValue], layout: ItemLayout) {
        let (conditions, arguments) = keyset.filter(view)
        var seen = Set<String>()
        let fields = view.sort.map(\.field).filter { seen.insert($0).inserted }
        let keys = fields.map(SQL.quote).joined(separator: ", ")
        let sql = """
            SELECT \(keys), data_mediator_row FROM (
                SELECT \(fields.map(keyset.selected).joined(separator: ", ")), ROW_NUMBER() OVER (ORDER BY \(keyset.orderBy(view))) AS data_mediator_row
                FROM \(from)\(SQL.whereClause(conditions))
            ) AS numbered WHERE (data_mediator_row - 1) % \(ViewOutline.spacing) = 0 ORDER BY data_mediator_row
            """
        return (sql, arguments, ItemLayout(fields))
    }

    /// The view's sections and counts: from its outline when one is kept at the stamp of
    /// the tables now; otherwise counted, while the outline is read in the background.
    public func keptSectionCounts(of view: View) async throws -> SectionCounts {
        if let kept = outlines.latest(view.binding), let counts = try await sections(from: kept) { return counts }
        guard let stamp = try await currentStamp() else { return try await sectionCounts(of: view) }
        readOutlineInBackground(of: view, at: stamp)
        // Counted once for the requests that ask at this stamp: a view asked for by many
        // at once (a cold start under load) would otherwise run one count for each.
        return try await counted.value(view.binding, stamp: stamp) { try await sectionCounts(of: view) }
    }

    /// The sections of `kept`'s view from it, or from it carried to the stamp now, with
    /// the store's version; nil when it cannot be carried. Kept at the stamp now, one
    /// statement (the stamp and the version); carried, in one snapshot.
    private func sections(from kept: ViewOutline) async throws -> SectionCounts? {
        let now = try await transactions.readStatements { session in try await stampAndVersion(session) }
        if let now, now.stamp == kept.stamp { return SectionCounts(entries: kept.counts.entries, version: now.version) }
        return try await transactions.shortRead { session in
            guard let now = try await stampAndVersion(session),
                let outline = try await outline(carrying: kept, to: now.stamp, session)
            else { return nil }
            return SectionCounts(entries: outline.counts.entries, version: now.version)
        }
    }

    /// `kept` when it is at `stamp`, or carried to it over the writes the change log holds
    /// since (``StampSteps``; every replica's), then kept; nil when a write between is not
    /// logged or changes the view in a way an outline does not follow: it is read again.
    private func outline(
        carrying kept: ViewOutline,
        to stamp: Int64,
        _ session: any SQLSession
    ) async throws -> ViewOutline? {
        if kept.stamp == stamp { return kept }
        let binding = kept.view.binding
        guard
            kept.stamp < stamp,
            let keys = loggedKeys,
            let writes = try await StampSteps.writes(
                list: listName,
                binding: binding,
                keys: [keys.key(kept.view), keys.registeredKey(kept.view)],
                layout: layout,
                types: columnTypes,
                from: kept.stamp,
                since: kept.counts.version,
                to: stamp,
                session
            )
        else { return nil }
        var outline = kept
        for (after, write) in writes {
            guard let next = outline.applying(write, stamp: after) else { return nil }
            outline = next
        }
        outlines.keep(binding, stamp: stamp, outline)
        return outline
    }

    /// The store's version when the list's tables are at `stamp`; nil when they moved.
    func version(ifStamp stamp: Int64) async throws -> Int64? {
        try await transactions.readStatements { session in
            guard let now = try await stampAndVersion(session), now.stamp == stamp else { return nil }
            return now.version
        }
    }

    /// The item with `id` in the view and its place: counted from the nearest mark of the
    /// view's outline when one is kept at the stamp of the tables now; otherwise from the
    /// view's start, while the outline is read in the background (by at most
    /// ``CountingSlots/perKey`` requests at once: the others wait for that outline).
    public func keptLocate(id: String, in view: View) async throws -> Location? {
        if let outline = outlines.latest(view.binding),
            case .placed(let location) = try await place(id, in: view, outline)
        {
            return location
        }
        guard let stamp = try await currentStamp() else { return try await locate(id: id, in: view) }
        readOutlineInBackground(of: view, at: stamp)
        // Waits for the outline being read at this stamp when the slots are taken (not
        // for one a resting view would start anew), and counts when it fails.
        if !countingSlots.take(view.binding) {
            if outlines.isComputing(view.binding, at: stamp),
                let outline = try? await outlines.value(
                    view.binding,
                    stamp: stamp,
                    compute: { try await readOutline(of: view) }
                ),
                case .placed(let location) = try await place(id, in: view, outline)
            {
                return location
            }
            return try await locate(id: id, in: view)
        }
        defer { countingSlots.giveBack(view.binding) }
        return try await locate(id: id, in: view)
    }

    private enum Placement {
        case placed(Location?)
        case moved
    }

    /// The item's place from `kept`: with the outline at the stamp now, from two
    /// statements outside a transaction (``placeAtItsStamp(_:in:_:)``); otherwise, or when
    /// a write came between them, from it carried to the stamp of one snapshot. `.moved`
    /// when it cannot be carried there.
    private func place(_ id: String, in view: View, _ kept: ViewOutline) async throws -> Placement {
        if let placed = try await placeAtItsStamp(id, in: view, kept) { return placed }
        return try await transactions.shortRead { session in
            guard let now = try await stampAndVersion(session),
                let outline = try await outline(carrying: kept, to: now.stamp, session)
            else { return .moved }
            guard let item = try await item(id: id, in: view, session) else { return .placed(nil) }
            let location = try await place(of: item, in: view, outline, version: now.version, session)
            return location.map { .placed($0) } ?? .moved
        }
    }

    /// The item's place from `kept` while the tables are at its stamp, outside a
    /// transaction: the item, the stamp and the version in one statement, then the rows
    /// from the mark before it counted with the stamp read again (two round trips on a
    /// server, where a snapshot takes four). Nil when the outline is not at the stamp, or
    /// the stamp moved between the two statements.
    private func placeAtItsStamp(_ id: String, in view: View, _ kept: ViewOutline) async throws -> Placement? {
        guard stampAndVersionColumns != nil else { return nil }
        return try await transactions.readStatements { session in
            guard let read = try await stampedItem(id: id, in: view, session), let item = read.item else {
                return .placed(nil)
            }
            guard read.stamp == kept.stamp else { return nil }
            return try await place(of: item, in: view, kept, version: read.version, checking: read.stamp, session)
                .map { .placed($0) }
        }
    }

    /// The place of `item` (of the view) from `outline`, at `version`: the rows from the
    /// mark before it counted. Nil when the outline has no section of the item's, or when
    /// `checking` is given and a count read another stamp.
    private func place(
        of item: Item,
        in view: View,
        _ outline: ViewOutline,
        version: Int64,
        checking stamp: Int64? = nil,
        _ session: any SQLSession
    ) async throws -> Location? {
        let position = view.position(of: item)
        let (mark, length) = outline.stretch(of: position)
        guard
            let rows = try await rows(
                from: mark?.position,
                before: position,
                within: length,
                in: view,
                checking: stamp,
                session
            )
        else { return nil }
        let index = (mark?.index ?? 0) + rows
        var sectionIndex = 0
        var itemIndex = index
        if view.section != nil {
            guard let start = outline.section(view.sectionID(of: item)) else { return nil }
            sectionIndex = start.index
            itemIndex = index - start.start
        }
        return Location(item: item, position: index, sectionIndex: sectionIndex, itemIndex: itemIndex, version: version)
    }

    /// The rows of the view from `mark` (inclusive; the view's start when nil) that come
    /// before `position`, among the `length` rows from `mark` on (the stretch to the next
    /// mark, at most ``ViewOutline/longestGap``), counted in one statement on the view's
    /// index from the sort keys alone (no table row is read). A view of several index
    /// ranges counts the first `length` rows of each, joined by `UNION ALL`: the stretch
    /// holds the position, so the rows before it are among them, and a range past it adds
    /// none. Given `checking`, the statement reads the tables' stamp too: nil when it read
    /// another.
    private func rows(
        from mark: Position?,
        before position: Position,
        within length: Int,
        in view: View,
        checking stamp: Int64?,
        _ session: any SQLSession
    ) async throws -> Int? {
        let before = keyset.before(position, in: view)
        let stampColumn = stamp == nil ? "" : stampSQL.map { ", (\($0))" } ?? ""
        // The limit is written in, rounded up (WindowQueries.roundedLimit); rows past the
        // position add nothing to the count.
        let ranges = windows.queries(of: view, from: mark, inclusive: true, selecting: .sortKeys).map {
            WindowQueries.limited($0, limit: WindowQueries.roundedLimit(length))
        }
        let union = ranges.enumerated().map { index, range in "SELECT * FROM (\(range.sql)) AS dm_range_\(index)" }
        let rows = try await session.rows(
            "SELECT COALESCE(SUM(CASE WHEN \(before.sql) THEN 1 ELSE 0 END), 0)\(stampColumn) "
                + "FROM (\(union.joined(separator: " UNION ALL "))) AS counted",
            before.arguments + ranges.flatMap(\.arguments)
        )
        if let stamp {
            guard let row = rows.first, row.count > 1, row[1].integerValue == stamp else { return nil }
        }
        return Int(rows.first?[0].integerValue ?? 0)
    }
}
