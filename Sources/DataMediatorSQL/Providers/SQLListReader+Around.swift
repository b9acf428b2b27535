import DataMediator

/// The items around an item, as both SQL stores read them for a view whose windows are
/// several index ranges (a store reads a one-range view's in one statement of its own).
extension SQLListReader {
    /// The items around the one with `id`: up to `before` items before it, nearest first,
    /// and up to `from` from it on, in view order; nil when the view has no such item.
    ///
    /// Over stamped tables, two statements outside a transaction: the item with the
    /// tables' stamp and the store's version, then both sides at once, each range's first
    /// rows joined by `UNION ALL`, with the stamp again. When a write came between the two
    /// (the stamp moved), or over a query that names no tables, the item and then each
    /// range in one snapshot. (SQLite reads these on a page reader in a transaction of its
    /// own, cheaper there than the shared rules' executor; this is its fallback.)
    public func window(of view: View, around id: String, before: Int, from: Int) async throws -> AnchoredWindow? {
        if case .read(let window) = try await windowAtOneStamp(of: view, around: id, before: before, from: from) {
            return window
        }
        return try await transactions.shortRead { session in
            guard let item = try await item(id: id, in: view, session) else { return nil }
            let position = view.position(of: item)
            let backward = windows.queries(of: view.reversed, from: position, inclusive: false)
            let forward = windows.queries(of: view, from: position, inclusive: true)
            return AnchoredWindow(
                before: try await read(backward, limit: max(0, before), session),
                from: try await read(forward, limit: max(0, from), session),
                version: try await StoreVersion.current(session)
            )
        }
    }

    private enum Anchoring {
        case read(AnchoredWindow?)
        case moved
    }

    /// ``window(of:around:before:from:)`` from two statements that read one stamp of the
    /// tables; `.moved` when they did not (or the tables have no stamp, or nothing is to
    /// be read from the item: its own row is what finds it among the rows).
    private func windowAtOneStamp(of view: View, around id: String, before: Int, from: Int) async throws -> Anchoring {
        guard let stampSQL, stampAndVersionColumns != nil, from > 0 else { return .moved }
        return try await transactions.readStatements { session in
            guard let anchor = try await stampedItem(id: id, in: view, session), let item = anchor.item else {
                return .read(nil)
            }
            let position = view.position(of: item)
            let before = max(0, before)
            let backward = windows.queries(of: view.reversed, from: position, inclusive: false)
            let forward = windows.queries(of: view, from: position, inclusive: true)
            // Limits written in, rounded up (WindowQueries.roundedLimit); the rows past
            // them are dropped below.
            let sides =
                backward.map { WindowQueries.limited($0, limit: WindowQueries.roundedLimit(before)) }
                + forward.map { WindowQueries.limited($0, limit: WindowQueries.roundedLimit(from)) }
            let sql = sides.enumerated().map { index, side in
                "SELECT *, (\(stampSQL)) FROM (\(side.sql)) AS dm_range_\(index)"
            }
            let rows = try await session.rows(sql.joined(separator: " UNION ALL "), sides.flatMap(\.arguments))
            // The item's own row is among them unless it went: then the stamp moved too.
            guard let first = rows.first, first.last?.integerValue == anchor.stamp else { return .moved }
            let items = rows.map { Item(row: $0, layout: layout, types: columnTypes) }
            let window = anchored(items, id: id, in: view, version: anchor.version)
            // The item's own row leads the rows from it (it was read at this stamp).
            guard let window, window.from.first.map({ isItem($0, id: id) }) == true else { return .moved }
            return .read(
                AnchoredWindow(
                    before: Array(window.before.prefix(before)),
                    from: Array(window.from.prefix(from)),
                    version: anchor.version
                )
            )
        }
    }

    /// The item with `id` in the view, read with the tables' stamp and the store's version
    /// in one statement (``itemQuery(id:in:extra:)``); the item nil when none of the rows
    /// read is it, and nil when no row has the id (at any stamp) or the tables have no
    /// stamp.
    func stampedItem(
        id: String,
        in view: View,
        _ session: any SQLSession
    ) async throws -> (item: Item?, stamp: Int64, version: Int64)? {
        guard let stampAndVersionColumns, let query = itemQuery(id: id, in: view, extra: stampAndVersionColumns) else {
            return nil
        }
        let rows = try await session.rows(query.sql, query.arguments)
        guard let first = rows.first else { return nil }
        guard first.count == columns.count + 2, let stamp = first[columns.count].integerValue,
            let version = first[columns.count + 1].integerValue
        else { throw DataMediatorError(.unavailable, "The store's version could not be read.") }
        let item = rows.lazy.map { Item(row: $0, layout: layout, types: columnTypes) }.first { isItem($0, id: id) }
        return (item, stamp, version)
    }
}
