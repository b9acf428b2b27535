/// What a composite list reads from a child list: its entries in order, one entry by id,
/// its section info, and cursors that continue it.
extension ListAdapter {
    /// Up to `limit` entries of `view` after `start` (at or after it when `inclusive`),
    /// from the beginning when `start` is nil.
    ///
    /// - Throws: `badCursor` for a position that is not one of `view`'s (a composite's
    ///   cursor made before its config changed); whatever the provider throws.
    public func entries(
        of view: View,
        from start: Position?,
        inclusive: Bool,
        limit: Int
    ) async throws
        -> [ListEntry]
    {
        try await entryWindow(of: view, from: start, inclusive: inclusive, limit: limit).entries
    }

    /// ``entries(of:from:inclusive:limit:)`` with the version they were read at, so a
    /// composite's page takes its version from the reads it made anyway.
    public func entryWindow(
        of view: View,
        from start: Position?,
        inclusive: Bool,
        limit: Int
    ) async throws
        -> (entries: [ListEntry], version: Int64)
    {
        try check(start, in: view)
        return entries(of: try await provider.window(of: view, from: start, inclusive: inclusive, limit: limit), view)
    }

    /// Up to `limit` entries of `view` before `start` (at or before it when `inclusive`),
    /// nearest first, from the view's end when `start` is nil, with the version they were
    /// read at.
    public func entryWindow(
        of view: View,
        before start: Position?,
        inclusive: Bool,
        limit: Int
    ) async throws
        -> (entries: [ListEntry], version: Int64)
    {
        try check(start, in: view)
        return entries(of: try await provider.window(of: view, before: start, inclusive: inclusive, limit: limit), view)
    }

    /// Refuses a position that is not one of `view`'s (a composite's cursor made before its
    /// config changed).
    private func check(_ start: Position?, in view: View) throws(DataMediatorError) {
        if let start, start.values.count != view.sort.count {
            throw DataMediatorError(
                .badCursor,
                "The cursor does not fit view '\(view.name)' of list '\(definition.name)'; reload from the first page."
            )
        }
    }

    /// A window's items as entries of `view`.
    private func entries(of window: Window, _ view: View) -> (entries: [ListEntry], version: Int64) {
        let presenter = presenter(for: view)
        let entries = window.items.map { item in
            let section = view.section(of: item)
            return ListEntry(
                cell: presenter.cell(for: item),
                sectionID: section.id,
                sectionTitle: section.title,
                position: view.position(of: item)
            )
        }
        return (entries, window.version)
    }

    /// The entry with `id` in `view` and where it stands, or nil when the view has no such item.
    public func entry(id: String, in view: View) async throws -> (entry: ListEntry, location: Location)? {
        guard let location = try await provider.locate(id: id, in: view) else { return nil }
        let section = view.section(of: location.item)
        let entry = ListEntry(
            cell: presenter(for: view).cell(for: location.item),
            sectionID: section.id,
            sectionTitle: section.title,
            position: view.position(of: location.item)
        )
        return (entry, location)
    }

    /// A signed cursor whose page continues `view` right after `entry`.
    public func cursor(after entry: ListEntry, in view: View) -> String {
        signer.sign(
            Cursor(
                list: definition.name,
                view: view.typedCursorBinding,
                position: entry.position,
                inclusive: false
            )
        )
    }
}
