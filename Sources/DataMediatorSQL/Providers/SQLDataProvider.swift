import DataMediator

/// A store's provider of a list over a SQL table or query: it answers pages its own
/// fastest way, and everything else as both SQL stores do, through its ``reader``.
public protocol SQLDataProvider: DataProvider, SectionInfoProvider {
    /// The reads both SQL stores answer alike.
    var reader: SQLListReader { get }
}

extension SQLDataProvider {
    /// The version of the list's source now.
    public func currentVersion() async throws -> Int64 {
        try await reader.currentVersion()
    }

    /// Waits until the store's reads reach `version` (``SQLTransactions/catchUp(to:)``).
    public func catchUp(to version: Int64) async throws -> CatchUp {
        try await reader.transactions.catchUp(to: version)
    }

    /// The item with `id` in the view and its place: from a query list's kept result, or
    /// counted from the nearest mark of the view's kept outline.
    public func locate(id: String, in view: View) async throws -> Location? {
        guard let kept = try await reader.keptQuery(view) else { return try await reader.keptLocate(id: id, in: view) }
        guard let location = try await kept.provider.locate(id: id, in: view) else { return nil }
        return Location(
            item: location.item,
            position: location.position,
            sectionIndex: location.sectionIndex,
            itemIndex: location.itemIndex,
            version: kept.version
        )
    }

    /// The view's sections and counts, kept per stamp of the list's tables.
    public func sectionCounts(of view: View) async throws -> SectionCounts {
        guard let kept = try await reader.keptQuery(view) else { return try await reader.keptSectionCounts(of: view) }
        return SectionCounts(entries: try await kept.provider.sectionCounts(of: view).entries, version: kept.version)
    }

    /// Up to `limit` items before (or at and before) `start`, nearest first: a query
    /// list's from its kept result, any other as the forward window of the view reversed,
    /// which reads the same index ranges backward.
    public func window(of view: View, before start: Position?, inclusive: Bool, limit: Int) async throws -> Window {
        if let kept = try await reader.keptQuery(view) {
            let window = try await kept.provider.window(of: view, before: start, inclusive: inclusive, limit: limit)
            return Window(items: window.items, version: kept.version)
        }
        return try await window(of: view.reversed, from: start, inclusive: inclusive, limit: limit)
    }

    /// The items around the one with `id`, in one snapshot: the item by its id, then the
    /// windows on both sides of its position (a query list's from its kept result).
    public func window(of view: View, around id: String, before: Int, from: Int) async throws -> AnchoredWindow? {
        try await readWindow(of: view, around: id, before: before, from: from)
    }

    /// ``window(of:around:before:from:)`` as both SQL stores read it (through ``reader``),
    /// for a store whose own faster way does not apply.
    public func readWindow(of view: View, around id: String, before: Int, from: Int) async throws -> AnchoredWindow? {
        if let kept = try await reader.keptQuery(view) {
            guard let window = try await kept.provider.window(of: view, around: id, before: before, from: from) else {
                return nil
            }
            return AnchoredWindow(before: window.before, from: window.from, version: kept.version)
        }
        return try await reader.window(of: view, around: id, before: before, from: from)
    }

    /// The items on both sides of `start` as both SQL stores read them, in one snapshot (a
    /// query list's from its kept result), for a store whose own faster way does not apply.
    public func readWindow(
        of view: View,
        at start: Position,
        inclusive: Bool,
        before: Int,
        from: Int
    ) async throws -> AnchoredWindow {
        if let kept = try await reader.keptQuery(view) {
            let window = try await kept.provider.window(
                of: view,
                at: start,
                inclusive: inclusive,
                before: before,
                from: from
            )
            return AnchoredWindow(before: window.before, from: window.from, version: kept.version)
        }
        return try await reader.window(of: view, at: start, inclusive: inclusive, before: before, from: from)
    }

    /// A window of a query list's kept result; nil for a list that keeps none (a table,
    /// or a query naming no tables), which the store reads its own way.
    public func keptWindow(of view: View, from start: Position?, inclusive: Bool, limit: Int) async throws -> Window? {
        guard let kept = try await reader.keptQuery(view) else { return nil }
        let window = try await kept.provider.window(of: view, from: start, inclusive: inclusive, limit: limit)
        return Window(items: window.items, version: kept.version)
    }
}

/// Assembles what a list over a SQL store serves: its writer and change log when it is a
/// writable table list, and its adapter.
public enum SQLListAssembly {
    /// The writer and change log of a writable table list, or nil for a list that is not
    /// writable. Its history started when the store prepared its table
    /// (``TableSchema/prepareStatements(keyset:)``).
    ///
    /// - Throws: `StoreError` when the list is writable but its source is a query, or it
    ///   has no revision field.
    public static func writes(
        for list: ListDefinition,
        source: StoreSource,
        reader: SQLListReader,
        tableWriters: TableWriters
    ) throws -> (writer: SQLItemWriter, changeLog: SQLChangeLog)? {
        guard let (table, revision) = try source.writeTarget(of: list) else { return nil }
        let changeLog = SQLChangeLog(
            transactions: reader.transactions,
            list: list,
            table: table,
            columns: StoreSource.columns(of: list),
            fieldTypes: source.fieldTypes
        )
        let writer = SQLItemWriter(
            list: list,
            table: table,
            revisionField: revision,
            fieldTypes: source.fieldTypes,
            idIsInteger: reader.idIsInteger,
            reader: reader,
            changeLog: changeLog,
            tableWriters: tableWriters
        )
        return (writer, changeLog)
    }

    /// The adapter of a list over `source`: its provider, and for a writable list its
    /// writer and change log; a list that is not writable reloads when the tables it reads
    /// change.
    ///
    /// - Throws: `StoreError` as ``writes(for:source:reader:tableWriters:)`` does.
    public static func adapter(
        for list: ListDefinition,
        source: StoreSource,
        provider: some SQLDataProvider,
        tableWriters: TableWriters,
        signer: CursorSigner,
        notifier: ChangeNotifier
    ) throws -> ListAdapter {
        let writes = try writes(for: list, source: source, reader: provider.reader, tableWriters: tableWriters)
        return ListAdapter(
            definition: list,
            provider: provider,
            signer: signer,
            writer: writes?.writer,
            changeLog: writes?.changeLog ?? ReloadLog(lastChange: { try await provider.reader.lastChange() }),
            notifier: notifier
        )
    }
}
