import Crypto

/// Composes a list's provider, section info and presenters behind the contract: pages,
/// located items and section info for any of the list's views.
///
/// Everything a request names arrives raw (strings as the client sent them) and is
/// checked here, so every front end applies the same rules.
public struct ListAdapter: Sendable {
    /// The list's definition.
    public let definition: ListDefinition
    let provider: any DataProvider & SectionInfoProvider
    private let presenters: [String: any Presenter]
    private let mediator: Mediator
    let signer: CursorSigner
    private let writer: (any ItemWriter)?
    private let changeLog: (any ChangeLog)?
    /// Signals live streams after each write.
    public let notifier: ChangeNotifier

    /// Creates an adapter; each view gets a ``FieldPresenter`` unless `presenters` names one.
    ///
    /// A list with a `changeLog` answers changes item by item; one without answers a
    /// single `reload` when its version moved.
    public init(
        definition: ListDefinition,
        provider: any DataProvider & SectionInfoProvider,
        signer: CursorSigner,
        presenters: [String: any Presenter] = [:],
        writer: (any ItemWriter)? = nil,
        changeLog: (any ChangeLog)? = nil,
        notifier: ChangeNotifier = ChangeNotifier()
    ) {
        self.definition = definition
        self.provider = provider
        self.writer = definition.isWritable ? writer : nil
        self.changeLog = changeLog
        self.notifier = notifier
        self.signer = signer
        self.mediator = Mediator(signer: signer)
        var all = presenters
        for view in definition.views where all[view.name] == nil {
            all[view.name] = FieldPresenter(
                view: view,
                idField: definition.idField,
                revisionField: definition.revisionField
            )
        }
        self.presenters = all
    }

    func presenter(for view: View) -> any Presenter {
        presenters[view.name]
            ?? FieldPresenter(view: view, idField: definition.idField, revisionField: definition.revisionField)
    }

    /// A page of a view.
    ///
    /// - Parameters:
    ///   - view: the view's name; nil for the default view.
    ///   - limit: the raw `limit` parameter; nil for the list's default.
    ///   - cursor: the raw `cursor` parameter; nil for the first page.
    /// - Throws: `unknownView`, `badLimit`, `badCursor` or `cursorMismatch` as
    ///   ``ListDefinition/view(named:)``, ``PageLimits/resolve(_:)`` and
    ///   ``CursorSigner/verify(_:list:view:)`` describe; and whatever the provider throws.
    public func page(view name: String?, limit rawLimit: String?, cursor token: String?) async throws -> Page {
        let view = try definition.view(named: name)
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
    public func locate(id: String, view name: String?) async throws -> ItemLocation {
        let view = try definition.view(named: name)
        guard let location = try await provider.locate(id: id, in: view) else {
            throw DataMediatorError(
                .unknownItem,
                "List '\(definition.name)' has no item '\(id)' in view '\(view.name)'."
            )
        }
        let section = view.section(of: location.item)
        let cursor = Cursor(
            list: definition.name,
            view: view.name,
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
    public func sectionInfo(view name: String?) async throws -> SectionInfo {
        let view = try definition.view(named: name)
        let counts = try await provider.sectionCounts(of: view)
        let sections = counts.entries.map { entry in
            guard let rule = view.section else {
                return SectionInfo.Section(id: view.name, title: nil, count: entry.count)
            }
            return SectionInfo.Section(
                id: rule.id(for: entry.key),
                title: rule.titleField == nil ? rule.title(for: entry.key) : entry.title,
                count: entry.count
            )
        }
        return SectionInfo(list: definition.name, view: view.name, version: counts.version, sections: sections)
    }

    // MARK: - Changes

    /// Page sizes of a changes answer.
    public static let changeLimits = PageLimits(defaultLimit: 100, maximumLimit: 1000)

    /// What changed in a view after version `since`, at most `limit` changes, with the
    /// `since` that continues the answer when more follow.
    ///
    /// - Throws: `unknownView`; `badRequest` for a missing or malformed `since`;
    ///   `badLimit`; `historyGone` when `since` is older than the kept history or newer
    ///   than the list's version.
    public func changes(view name: String?, since rawSince: String?, limit rawLimit: String?) async throws -> ChangeSet
    {
        let view = try definition.view(named: name)
        let since = try Self.version(rawSince)
        let limit = try Self.changeLimits.resolve(rawLimit)
        return try await changes(of: view, since: since, limit: limit)
    }

    /// What changed in `view` after version `since`: at most `limit` changes.
    public func changes(of view: View, since: Int64, limit: Int) async throws -> ChangeSet {
        guard let changeLog else {
            let version = try await currentVersion()
            try DataMediatorError.checkHistory(since: since, floor: 0, version: version)
            let entries =
                since < version
                ? [ChangeSet.Entry(operation: .reload, version: version, id: "", cell: nil, placement: nil)] : []
            return ChangeSet(
                list: definition.name,
                view: view.name,
                since: since,
                version: version,
                entries: entries,
                next: nil
            )
        }
        let window = try await changeLog.changes(of: view, since: since, limit: limit + 1)
        var kept = window.changes.prefix(limit)
        // One write may change a view in several places (a composite showing an item
        // twice): its changes share a version, and `next` continues after a version, so
        // an answer never ends inside one. It ends before that write's changes, or holds
        // them all when they alone are more than `limit`.
        if window.changes.count > limit, let last = kept.last, window.changes[limit].version == last.version {
            let before = kept.prefix { $0.version != last.version }
            kept = before.isEmpty ? window.changes.prefix { $0.version == last.version } : before
        }
        let presenter = presenter(for: view)
        let entries = kept.map { change in
            ChangeSet.Entry(
                operation: change.operation,
                version: change.version,
                id: change.id,
                cell: change.item.map { presenter.cell(for: $0) },
                placement: change.placement
            )
        }
        return ChangeSet(
            list: definition.name,
            view: view.name,
            since: since,
            version: window.version,
            entries: entries,
            next: window.changes.count > kept.count ? kept.last?.version : nil
        )
    }

    /// The list's version now, as a page would report it.
    public func currentVersion() async throws -> Int64 {
        try await provider.currentVersion()
    }

    /// A version parameter (`since`, `Last-Event-ID`): a whole number, at least 0.
    ///
    /// - Throws: `badRequest` when it is missing, empty or not such a number.
    public static func version(_ raw: String?, name: String = "since") throws(DataMediatorError) -> Int64 {
        guard let raw else {
            throw DataMediatorError(
                .badRequest,
                "'\(name)' is required: the version of the pages you hold (a page's 'version')."
            )
        }
        guard !raw.isEmpty, raw.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let version = Int64(raw) else {
            throw DataMediatorError(
                .badRequest,
                "'\(name)' must be a version: a whole number, at least 0; got '\(raw)'."
            )
        }
        return version
    }

    // MARK: - Writes

    /// Whether the list takes writes.
    public var isWritable: Bool { writer != nil }

    /// Creates an item from a request body `{"id": optional, "data": {...}}`.
    ///
    /// With an `idempotencyKey`, a retry with the same key and the same body (as JSON:
    /// spacing and member order do not count) answers what the first did and writes nothing.
    ///
    /// - Throws: `readOnly`; `invalidItem` for a body of the wrong shape or data breaking
    ///   the field rules; `conflict` when the id exists; `idempotencyKeyReused` when the
    ///   key came with another body.
    public func create(body: JSONValue, idempotencyKey: String? = nil) async throws -> WrittenItem {
        let writer = try requireWriter()
        let (id, fields) = try Self.fields(of: body, allowingID: true)
        try definition.rules.check(fields)
        let key = idempotencyKey.map { IdempotencyKey(key: $0, fingerprint: Self.fingerprint(of: body)) }
        return try written(await writer.insert(id: id, fields: fields, idempotency: key))
    }

    /// A SHA-256 of the body's JSON with members in a fixed order.
    static func fingerprint(of body: JSONValue) -> String {
        var writer = JSONWriter()
        writer.write(body)
        return Hex.string(SHA256.hash(data: writer.bytes))
    }

    /// Replaces (or creates) the item with `id` from a body `{"data": {...}}`.
    public func replace(id: String, body: JSONValue) async throws -> WrittenItem {
        let writer = try requireWriter()
        let (_, fields) = try Self.fields(of: body, allowingID: false)
        try definition.rules.check(fields)
        return try written(await writer.replace(id: id, fields: fields))
    }

    /// Merge-patches (RFC 7396) the item with `id` from a body `{"data": {...}}`; the
    /// merged item must meet the field rules.
    public func patch(id: String, body: JSONValue) async throws -> WrittenItem {
        let writer = try requireWriter()
        let (_, changes) = try Self.fields(of: body, allowingID: false)
        let rules = definition.rules
        return try written(
            await writer.patch(id: id, with: .object(changes)) { merged throws(DataMediatorError) in
                try rules.check(merged)
            }
        )
    }

    /// Deletes the item with `id`; returns the source's new version.
    public func delete(id: String) async throws -> Int64 {
        let version = try await requireWriter().delete(id: id)
        notifier.publish()
        return version
    }

    private func requireWriter() throws(DataMediatorError) -> any ItemWriter {
        guard let writer else {
            throw DataMediatorError(
                .readOnly,
                "List '\(definition.name)' is read-only; it answers GET, HEAD and OPTIONS."
            )
        }
        return writer
    }

    private func written(_ result: WriteResult) throws(DataMediatorError) -> WrittenItem {
        if !result.replayed { notifier.publish() }
        guard let view = definition.defaultView else {
            throw DataMediatorError(.readOnly, "List '\(definition.name)' has no view to show items with.")
        }
        return WrittenItem(
            cell: presenter(for: view).cell(for: result.item),
            version: result.version,
            created: result.created,
            replayed: result.replayed
        )
    }

    /// The id and fields of a write body; only `id` (when allowed) and `data` may appear.
    static func fields(of body: JSONValue, allowingID: Bool) throws(DataMediatorError) -> (String?, [String: JSONValue])
    {
        guard case .object(let members) = body else {
            throw DataMediatorError(
                .invalidItem,
                "The body must be a JSON object with 'data'.",
                fieldProblems: [FieldProblem(field: "body", detail: "must be a JSON object")]
            )
        }
        var problems: [FieldProblem] = []
        for name in members.keys.sorted() where name != "data" && !(allowingID && name == "id") {
            problems.append(
                FieldProblem(
                    field: name,
                    detail: "is not allowed here; the body holds \(allowingID ? "'id' and " : "")'data'"
                )
            )
        }
        var id: String?
        switch members["id"] {
        case nil, .null?: break
        case .string(let text)? where !text.isEmpty: id = text
        case .integer(let whole)?: id = String(whole)
        default:
            if allowingID {
                problems.append(FieldProblem(field: "id", detail: "must be a non-empty string or a whole number"))
            }
        }
        guard case .object(let fields)? = members["data"] else {
            problems.append(FieldProblem(field: "data", detail: "is required and must be a JSON object"))
            throw DataMediatorError(.invalidItem, "The body must hold 'data', a JSON object.", fieldProblems: problems)
        }
        guard problems.isEmpty else {
            throw DataMediatorError(.invalidItem, "The body has members it may not have.", fieldProblems: problems)
        }
        return (id, fields)
    }
}

/// An item as a write stored it, shown as a page shows it.
public struct WrittenItem: Sendable, Hashable {
    /// The item's cell, in the list's default view.
    public let cell: Cell
    /// The source's version after the write.
    public let version: Int64
    /// Whether the write created the item.
    public let created: Bool
    /// Whether this answer replays an earlier create with the same idempotency key.
    public let replayed: Bool
}
