/// What a client reads from a list: pages of a view, located items and section info.
extension ListAdapter {
    /// A page of a view: the first, the one a cursor leads to (forward with a page's `next`,
    /// backward with its `prev`), or the one around an item.
    ///
    /// - Parameters:
    ///   - view: the view's name; nil for the default view.
    ///   - limit: the raw `limit` parameter; nil for the list's default.
    ///   - cursor: the raw `cursor` parameter; nil for the first page.
    ///   - around: the id of the item the page is to hold (API.md, "Both directions");
    ///     not with `cursor`.
    ///   - slice: the view's parameters and the caller's claims
    ///     (``ListDefinition/view(named:slice:)``).
    /// - Throws: `unknownView`, `badParameter`, `unauthorized`, `badLimit`, `badCursor` or `cursorMismatch` as
    ///   ``ListDefinition/view(named:)``, ``PageLimits/resolve(_:)`` and
    ///   ``CursorSigner/verify(_:list:view:)`` describe; `badParameter` for `around` with
    ///   `cursor`; `unknownItem` for an `around` id not in the view; `unavailable` for a
    ///   cursor whose page was read at a version the reads do not reach within the
    ///   provider's bound (``DataProvider/catchUp(to:)``); and whatever the provider throws.
    public func page(
        view name: String?,
        limit rawLimit: String?,
        cursor token: String?,
        around: String? = nil,
        slice: SliceRequest = .whole
    ) async throws -> Page {
        let view = try definition.view(named: name, slice: slice)
        let limit = try definition.limits.resolve(rawLimit)
        if let around {
            guard !around.isEmpty else {
                throw DataMediatorError(.badParameter, "'around' is empty: give the id of an item of the view.")
            }
            guard token == nil else {
                throw DataMediatorError(
                    .badParameter,
                    "Give either 'around' (the page that holds an item) or 'cursor' (the page a cursor leads to), "
                        + "not both."
                )
            }
            return try await page(of: view, limit: limit, around: around)
        }
        guard let token else { return try await page(of: view, limit: limit, from: nil) }
        let verified = try signer.verify(token, list: definition.name, view: view)
        let read = { [self] in
            // Read again after the reads caught up: the cursor's item may have reached them.
            let cursor = try await self.whole(verified, in: view)
            return cursor.backward
                ? try await self.page(of: view, limit: limit, before: cursor)
                : try await self.page(of: view, limit: limit, from: cursor)
        }
        let found = try await read()
        // A page older than the one its cursor came from (read through a replica that lags
        // more than the last one's) waits for the reads to reach it, as `changes` since a
        // version does: a walk never goes back to items its client already followed past.
        guard let version = verified.version, found.version < version else { return found }
        switch try await provider.catchUp(to: version) {
        case .notBehind, .independent: return found
        case .caughtUp: return try await read()
        case .stillBehind:
            throw DataMediatorError(
                .unavailable,
                "The store's read replica has not replayed version \(version), which the cursor's page was read "
                    + "at, yet; retry shortly."
            )
        }
    }

    /// The page that starts the view (no cursor) or that a forward cursor leads to: from a
    /// cursor, with the one item before the page, read with it, which tells whether the
    /// page has a `prev` and whether its first section `continues` (API.md, rules 2 and 8).
    private func page(of view: View, limit: Int, from cursor: Cursor?) async throws -> Page {
        guard let cursor else {
            let window = try await provider.window(of: view, from: nil, inclusive: false, limit: limit + 1)
            return page(of: view, limit: limit, items: window.items, version: window.version, from: nil, preceding: nil)
        }
        if !cursor.inclusive {
            // The item before the page is most often the cursor's own (the last item of the
            // page before, unchanged): read from it on, one row more, it is the first row.
            let window = try await provider.window(of: view, from: cursor.position, inclusive: true, limit: limit + 2)
            if startsAt(cursor, window.items, in: view) {
                return page(
                    of: view,
                    limit: limit,
                    items: Array(window.items.dropFirst()),
                    version: window.version,
                    from: cursor,
                    preceding: window.items.first
                )
            }
        }
        // It is gone, moved or never was (a located item's cursor): the item before the
        // page is read on the other side of the position, in the snapshot of the page's items.
        let window = try await provider.window(
            of: view,
            at: cursor.position,
            inclusive: cursor.inclusive,
            before: 1,
            from: limit + 1
        )
        return page(
            of: view,
            limit: limit,
            items: window.from,
            version: window.version,
            from: cursor,
            preceding: window.before.first
        )
    }

    /// A forward page of `items` (up to `limit + 1`: one more tells whether more follow),
    /// read from `cursor`, and `preceding`, the item before them when there is one.
    private func page(
        of view: View,
        limit: Int,
        items: [Item],
        version: Int64,
        from cursor: Cursor?,
        preceding: Item?
    ) -> Page {
        mediator.page(
            list: definition.name,
            view: view,
            presenter: presenter(for: view),
            limit: limit,
            items: Array(items.prefix(limit)),
            version: version,
            continuing: preceding.map(view.sectionID(of:)),
            before: preceding == nil ? .end : .held,
            after: items.count > limit ? .more : .end,
            anchor: cursor.map { Mediator.Anchor(position: $0.position, includesItem: !$0.inclusive) }
        )
    }

    /// The page a backward cursor (a page's `prev`) leads to: the `limit` items before its
    /// position, in view order, one more to tell whether more precede and whether the
    /// page's first section began before it, and the item after the page, which tells
    /// whether it has a `next` (null when nothing follows it now, as on any last page).
    private func page(of view: View, limit: Int, before cursor: Cursor) async throws -> Page {
        if !cursor.inclusive {
            // The item after the page is most often the cursor's own (the first item of the
            // page it came from): read back from it inclusively, one row more, it is the first.
            let window = try await provider.window(
                of: view,
                before: cursor.position,
                inclusive: true,
                limit: limit + 2
            )
            if startsAt(cursor, window.items, in: view) {
                return page(
                    of: view,
                    limit: limit,
                    nearest: Array(window.items.dropFirst()),
                    version: window.version,
                    before: cursor,
                    follows: true
                )
            }
        }
        let window = try await provider.window(
            of: view,
            at: cursor.position,
            inclusive: !cursor.inclusive,
            before: limit + 1,
            from: 1
        )
        return page(
            of: view,
            limit: limit,
            nearest: window.before,
            version: window.version,
            before: cursor,
            follows: !window.from.isEmpty
        )
    }

    /// A backward page of `items` (nearest first, up to `limit + 1`: one more tells whether
    /// more precede), read from `cursor`; `follows` says whether items follow it.
    private func page(
        of view: View,
        limit: Int,
        nearest items: [Item],
        version: Int64,
        before cursor: Cursor,
        follows: Bool
    ) -> Page {
        let more = items.count > limit
        return mediator.page(
            list: definition.name,
            view: view,
            presenter: presenter(for: view),
            limit: limit,
            items: Array(items.prefix(limit).reversed()),
            version: version,
            continuing: more ? view.sectionID(of: items[limit]) : nil,
            before: more ? .more : .end,
            after: follows ? .held : .end,
            anchor: Mediator.Anchor(position: cursor.position, includesItem: !cursor.inclusive)
        )
    }

    /// Whether `items` start with the item at `cursor`'s position (its own item, unmoved).
    private func startsAt(_ cursor: Cursor, _ items: [Item], in view: View) -> Bool {
        guard let first = items.first else { return false }
        return compare(view.position(of: first), cursor.position, in: view) == 0
    }

    /// The page that holds the item with `id`: up to `(limit - 1) / 2` items before it
    /// (fewer when fewer precede), then the item and the items after it up to `limit`.
    ///
    /// The side from the item is read as long as the page needs it when enough items
    /// precede (one more, to tell whether more follow), so an around page reads as many
    /// rows as a forward page; near the view's start, where fewer precede and the page
    /// takes more after the item, the rows after those read are read as a forward page is,
    /// and the window again with the longer side when a write came between.
    private func page(of view: View, limit: Int, around id: String) async throws -> Page {
        let wanted = (limit - 1) / 2
        let usual = limit - wanted + 1
        // No stored id holds U+0000 (see `String.holdsNUL`); a store is not asked for one.
        var window =
            id.holdsNUL ? nil : try await provider.window(of: view, around: id, before: wanted + 1, from: usual)
        if let short = window, short.before.count < wanted, short.from.count >= usual, let last = short.from.last {
            let rest = try await provider.window(
                of: view,
                from: view.position(of: last),
                inclusive: false,
                limit: limit + 1 - short.from.count
            )
            window =
                rest.version == short.version
                ? AnchoredWindow(before: short.before, from: short.from + rest.items, version: short.version)
                : try await provider.window(of: view, around: id, before: wanted + 1, from: limit + 1)
        }
        guard let window else {
            throw DataMediatorError(
                .unknownItem,
                "List '\(definition.name)' has no item '\(id)' in view '\(view.name)'."
            )
        }
        let shownBefore = Array(window.before.prefix(wanted).reversed())
        let rest = limit - shownBefore.count
        return mediator.page(
            list: definition.name,
            view: view,
            presenter: presenter(for: view),
            limit: limit,
            items: shownBefore + window.from.prefix(rest),
            version: window.version,
            continuing: window.before.count > wanted ? view.sectionID(of: window.before[wanted]) : nil,
            before: window.before.count > wanted ? .more : .end,
            after: window.from.count > rest ? .more : .end
        )
    }

    /// Where the item with `id` stands in a view, with a cursor whose page starts with it.
    ///
    /// - Throws: `unknownView`, or `unknownItem` when no item with that id is in the view.
    public func locate(id: String, view name: String?, slice: SliceRequest = .whole) async throws -> ItemLocation {
        let view = try definition.view(named: name, slice: slice)
        guard !id.holdsNUL, let location = try await provider.locate(id: id, in: view) else {
            throw DataMediatorError(
                .unknownItem,
                "List '\(definition.name)' has no item '\(id)' in view '\(view.name)'."
            )
        }
        let section = view.section(of: location.item)
        let cursor = Cursor(
            list: definition.name,
            view: view.typedCursorBinding,
            position: view.position(of: location.item),
            inclusive: true,
            version: location.version
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
