/// What a client reads from a list: pages of a view, located items and section info.
extension ListAdapter {
    /// A page of a view.
    ///
    /// - Parameters:
    ///   - view: the view's name; nil for the default view.
    ///   - limit: the raw `limit` parameter; nil for the list's default.
    ///   - cursor: the raw `cursor` parameter; nil for the first page.
    ///   - slice: the view's parameters and the caller's claims
    ///     (``ListDefinition/view(named:slice:)``).
    /// - Throws: `unknownView`, `badParameter`, `unauthorized`, `badLimit`, `badCursor` or `cursorMismatch` as
    ///   ``ListDefinition/view(named:)``, ``PageLimits/resolve(_:)`` and
    ///   ``CursorSigner/verify(_:list:view:)`` describe; and whatever the provider throws.
    public func page(
        view name: String?,
        limit rawLimit: String?,
        cursor token: String?,
        slice: SliceRequest = .whole
    ) async throws -> Page {
        let view = try definition.view(named: name, slice: slice)
        let limit = try definition.limits.resolve(rawLimit)
        let cursor = try token.map { (token) throws(DataMediatorError) in
            try signer.verify(token, list: definition.name, view: view)
        }
        let window = try await provider.window(
            of: view,
            from: cursor?.position,
            inclusive: cursor?.inclusive ?? false,
            limit: limit + 1
        )
        return mediator.page(
            list: definition.name,
            view: view,
            presenter: presenter(for: view),
            limit: limit,
            items: window.items,
            version: window.version,
            continuing: cursor?.continuing
        )
    }

    /// Where the item with `id` stands in a view, with a cursor whose page starts with it.
    ///
    /// - Throws: `unknownView`, or `unknownItem` when no item with that id is in the view.
    public func locate(id: String, view name: String?, slice: SliceRequest = .whole) async throws -> ItemLocation {
        let view = try definition.view(named: name, slice: slice)
        guard let location = try await provider.locate(id: id, in: view) else {
            throw DataMediatorError(
                .unknownItem,
                "List '\(definition.name)' has no item '\(id)' in view '\(view.name)'."
            )
        }
        let section = view.section(of: location.item)
        let cursor = Cursor(
            list: definition.name,
            view: view.cursorBinding,
            position: view.position(of: location.item),
            inclusive: true,
            continuing: location.itemIndex > 0 ? section.id : nil
        )
        return ItemLocation(
            list: definition.name,
            view: view.name,
            version: location.version,
            item: presenter(for: view).cell(for: location.item),
            sectionIndex: location.sectionIndex,
            itemIndex: location.itemIndex,
            sectionID: section.id,
            sectionTitle: section.title,
            position: location.position,
            cursor: signer.sign(cursor)
        )
    }

    /// The view's sections with their item counts.
    ///
    /// - Throws: `unknownView`.
    public func sectionInfo(view name: String?, slice: SliceRequest = .whole) async throws -> SectionInfo {
        try await sectionInfo(of: try definition.view(named: name, slice: slice))
    }

    /// The sections of `view` (a view of this list, or a slice of one) with their counts.
    public func sectionInfo(of view: View) async throws -> SectionInfo {
        let counts = try await provider.sectionCounts(of: view)
        let sections = sectionMemo.sections(for: view.binding, counts: counts.entries) {
            counts.entries.map { entry in
                guard let rule = view.section else {
                    return SectionInfo.Section(id: view.name, title: nil, count: entry.count)
                }
                return SectionInfo.Section(
                    id: rule.id(for: entry.key),
                    title: rule.titleField == nil ? rule.title(for: entry.key) : entry.title,
                    count: entry.count
                )
            }
        }
        return SectionInfo(list: definition.name, view: view.name, version: counts.version, sections: sections)
    }
}
