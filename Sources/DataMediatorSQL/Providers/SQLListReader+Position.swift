import DataMediator

/// The window on both sides of a position (``DataProvider/window(of:at:inclusive:before:from:)``),
/// as both SQL stores read it: a page read with a forward cursor takes the item before it
/// this way, in the snapshot it reads its items in.
extension SQLListReader {
    /// Up to `from` items after `start` (at or after it when `inclusive`) and up to `before`
    /// items before them, nearest first, with the version, in one snapshot: each side one
    /// index range after another.
    public func window(
        of view: View,
        at start: Position,
        inclusive: Bool,
        before: Int,
        from: Int
    ) async throws -> AnchoredWindow {
        let preceding = windows.queries(of: view.reversed, from: start, inclusive: !inclusive)
        let following = windows.queries(of: view, from: start, inclusive: inclusive)
        return try await transactions.read { session in
            AnchoredWindow(
                before: try await read(preceding, limit: max(0, before), session),
                from: try await read(following, limit: max(0, from), session),
                version: try await StoreVersion.current(session)
            )
        }
    }

    /// The window on both sides of `start` from the rows a statement of
    /// ``WindowQueries/both(of:at:inclusive:before:from:bindingLimits:)`` read, in whatever
    /// order they came: each row goes to the side its position is on, and each side is put
    /// in its order (nearest first before `start`, view order after it) unless it came so,
    /// and cut to its limit.
    public func split(
        _ rows: [Item],
        at start: Position,
        inclusive: Bool,
        in view: View,
        before: Int,
        from: Int,
        version: Int64
    ) -> AnchoredWindow {
        var preceding: [(row: Item, position: Position)] = []
        var following: [(row: Item, position: Position)] = []
        for (row, position) in zip(rows, view.positions(of: rows)) {
            let order = view.compare(position, start)
            if order < 0 || (order == 0 && !inclusive) {
                preceding.append((row, position))
            } else {
                following.append((row, position))
            }
        }
        func ordered(_ side: [(row: Item, position: Position)], nearestFirst: Bool, limit: Int) -> [Item] {
            let precedes = { (lhs: Position, rhs: Position) in
                let order = view.compare(lhs, rhs)
                return nearestFirst ? order > 0 : order < 0
            }
            let inOrder = zip(side, side.dropFirst()).allSatisfy { precedes($0.position, $1.position) }
            let sorted = inOrder ? side : side.sorted { precedes($0.position, $1.position) }
            return sorted.prefix(max(0, limit)).map(\.row)
        }
        return AnchoredWindow(
            before: ordered(preceding, nearestFirst: true, limit: before),
            from: ordered(following, nearestFirst: false, limit: from),
            version: version
        )
    }
}
