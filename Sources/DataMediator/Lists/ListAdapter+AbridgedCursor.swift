/// Cursors whose long sort keys a token carries abridged (``AbridgedKey``).
extension ListAdapter {
    /// `cursor` with its abridged keys whole again, read from its item (its id is the
    /// position's last value) when the item's keys are still the ones the token was made
    /// of; widened to the side its page reads from when the item is gone, has left the
    /// view, or its keys changed (the page may show again what it showed, never skip an
    /// item). A cursor that holds its keys whole is returned as it is.
    ///
    /// A composite's position holds its child's, abridged inside it: its provider makes it
    /// whole (``DataProvider/whole(_:backward:)``).
    func whole(_ cursor: Cursor, in view: View) async throws -> Cursor {
        if cursor.abridged.isEmpty, cursor.position.values.contains(where: AbridgedKey.holdsLong) {
            return cursor.with(
                position: try await provider.whole(cursor.position, backward: cursor.backward),
                abridged: [:]
            )
        }
        guard !cursor.abridged.isEmpty, let id = cursor.position.values.last?.idString else { return cursor }
        if let item = try await provider.window(of: view, around: id, before: 0, from: 1)?.from.first {
            let position = view.position(of: item)
            if AbridgedKey.matches(cursor, position) { return cursor.with(position: position, abridged: [:]) }
        }
        return AbridgedKey.widened(cursor, in: view)
    }
}
