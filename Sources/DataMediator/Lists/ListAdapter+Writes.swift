import Crypto

/// Writes to a writable list: create, replace, patch and delete, each checked against
/// the field rules, and live streams signalled after each.
extension ListAdapter {
    /// Whether the list takes writes.
    public var isWritable: Bool { writer != nil }

    /// Creates an item from a request body `{"id": optional, "data": {...}}`.
    ///
    /// With an `idempotencyKey`, a retry with the same key and the same body (as JSON:
    /// spacing and member order do not count) answers what the first did and writes nothing.
    /// Keys are kept per `caller` (the credential, as the edge names it) and per slice of
    /// `scope`: another caller's same key is another key.
    ///
    /// With a `condition` (a `POST`'s `If-Match`, `If-None-Match`) the list's first page
    /// must have (or not have) the tags it names; `If-Match` is checked in the write's own
    /// transaction, so of many creates that name one page's tag, one is stored. A replay
    /// of an idempotency key answers as the first write did, whatever the list is now.
    ///
    /// - Throws: `readOnly`; `invalidItem` for a body of the wrong shape or data breaking
    ///   the field rules; `conflict` when the id exists; `idempotencyKeyReused` when the
    ///   key came with another body; `preconditionFailed` when `condition` does not hold.
    public func create(
        body: JSONValue,
        idempotencyKey: String? = nil,
        caller: String = "",
        scope: WriteScope? = nil,
        condition: WriteCondition? = nil
    ) async throws
        -> WrittenItem
    {
        let writer = try requireWriter()
        // A scoped write's data lacks the scope field until confined: its rules are checked then.
        let (id, given) = try Self.fields(of: body, allowingID: true, rules: scope == nil ? definition.rules : nil)
        var fields = given
        if let scope { fields = try scope.confine(given) }
        try definition.rules.check(fields)
        fields = definition.rules.stored(fields)
        let key = idempotencyKey.map {
            IdempotencyKey(key: $0, caller: Self.keyCaller(caller, scope), fingerprint: Self.fingerprint(of: body))
        }
        let precondition = try await listPrecondition(condition, scope: scope)
        do {
            return try written(
                await writer.insert(id: id, fields: fields, idempotency: key, precondition: precondition)
            )
        } catch let error as DataMediatorError where error.isIDTaken && scope != nil {
            // The id may be another caller's item, which a PUT of this caller's would not
            // find: the id is taken, without a hint that it is an item to replace.
            throw DataMediatorError(
                .conflict,
                "The id '\(id ?? "")' is taken; choose another, or leave it out for the service to choose one.",
                fieldProblems: error.fieldProblems
            )
        }
    }

    /// The store's check of a create's `condition`, whose target is the list (RFC 9110
    /// 13.1): its representation is its first page in the default view, in the writer's
    /// slice. `If-None-Match` never holds (`*`: the list exists) or is checked now (a
    /// later page never has an earlier page's tag: the page holds its version).
    /// `If-Match` holds while the list stays at the version of the page whose tag it
    /// names, checked in the write's own transaction.
    ///
    /// - Throws: `preconditionFailed` when `If-None-Match` does not hold.
    private func listPrecondition(
        _ condition: WriteCondition?,
        scope: WriteScope?
    ) async throws -> VersionPrecondition? {
        guard let condition else { return nil }
        // A write token on a scoped list reads no page (it has no slice): no tag is current.
        let page = try? await self.page(view: nil, limit: nil, cursor: nil, slice: slice(writtenBy: scope))
        let tag = page.map { EntityTag.of($0.json()) } ?? ""
        if let ifNoneMatch = condition.ifNoneMatch, ifNoneMatch.contains("*") || ifNoneMatch.contains(tag) {
            throw DataMediatorError(
                .preconditionFailed,
                "If-None-Match: the list exists, and its first page has that ETag."
            )
        }
        guard let ifMatch = condition.ifMatch, !ifMatch.contains("*") else { return nil }
        let shown = ifMatch.contains(tag) ? page?.version : nil
        return { version throws(DataMediatorError) in
            guard let shown else {
                throw DataMediatorError(
                    .preconditionFailed,
                    ifMatch.isEmpty
                        ? WriteCondition.weakOnly
                        : "If-Match: the list's first page is no longer the one of that ETag (it is \(tag) now)."
                )
            }
            guard version == shown else {
                throw DataMediatorError(
                    .preconditionFailed,
                    "If-Match: the list changed while this write waited for its turn; read its first page again."
                )
            }
        }
    }

    /// Who an idempotency key belongs to: `caller`, and the slice `scope` writes (as JSON),
    /// so a key never crosses slices whatever the edge passes.
    static func keyCaller(_ caller: String, _ scope: WriteScope?) -> String {
        guard let scope else { return caller }
        var writer = JSONWriter()
        writer.write(.array([.string(scope.field), scope.value]))
        return caller + " " + writer.string
    }

    /// A SHA-256 of the body's JSON with members in a fixed order.
    static func fingerprint(of body: JSONValue) -> String {
        var writer = JSONWriter()
        writer.write(body)
        return Hex.string(SHA256.hash(data: writer.bytes))
    }

    /// Replaces (or creates) the item with `id` from a body `{"data": {...}}`, when the
    /// item as it stands meets `condition`.
    public func replace(
        id: String,
        body: JSONValue,
        scope: WriteScope? = nil,
        condition: WriteCondition? = nil
    ) async throws -> WrittenItem {
        let writer = try requireWriter()
        var (_, fields) = try Self.fields(of: body, allowingID: false, rules: scope == nil ? definition.rules : nil)
        if let scope { fields = try scope.confine(fields) }
        try definition.rules.check(fields)
        if let problem = FieldRules.idProblem(id) {
            throw DataMediatorError(
                .invalidItem,
                "The item's id \(problem).",
                fieldProblems: [FieldProblem(field: "id", detail: problem)]
            )
        }
        return try written(
            await writer.replace(
                id: id,
                fields: definition.rules.stored(fields),
                scope: scope,
                precondition: precondition(condition)
            )
        )
    }

    /// Merge-patches (RFC 7396) the item with `id` from a body `{"data": {...}}`; the
    /// merged item must meet the field rules, and the item as it stands `condition`.
    public func patch(
        id: String,
        body: JSONValue,
        scope: WriteScope? = nil,
        condition: WriteCondition? = nil
    ) async throws -> WrittenItem {
        let writer = try requireWriter()
        // A patch's fields are checked by type here, when the body's shape is wrong too (the
        // merged item meets every rule later): one answer names every bad field.
        let types = FieldRules(types: definition.rules.types, keyFields: definition.rules.keyFields)
        var (_, changes) = try Self.fields(of: body, allowingID: false, rules: scope == nil ? types : nil)
        try Self.requireStorable(id)
        if let scope, changes[scope.field] != nil { changes = try scope.confine(changes) }
        // The fields the patch names meet their rules before the store is asked for the
        // item: a bad field of a patch to an item that does not exist is `422`, as the
        // order of a write's checks says (it was `404`).
        try types.check(changes)
        let rules = definition.rules
        changes = rules.stored(changes)
        // The merged item's required fields, and the values the patch names: it writes
        // only those, so a value another program stored in another field stays as it is.
        let named = Set(changes.keys)
        return try written(
            await writer.patch(id: id, with: .object(changes), scope: scope, precondition: precondition(condition)) {
                merged throws(DataMediatorError) in
                try rules.check(merged, only: named)
            }
        )
    }

    /// Deletes the item with `id` when it meets `condition`; returns the source's new version.
    public func delete(id: String, scope: WriteScope? = nil, condition: WriteCondition? = nil) async throws -> Int64 {
        let writer = try requireWriter()
        try Self.requireStorable(id)
        let version = try await writer.delete(id: id, scope: scope, precondition: precondition(condition))
        notifier.publish()
        return version
    }

    /// The store's check of `condition`, by the tags of the cells the list's default view
    /// shows (a write's answer).
    private func precondition(_ condition: WriteCondition?) -> WritePrecondition? {
        guard let condition, let view = definition.defaultView else { return nil }
        let presenter = presenter(for: view)
        return { current in try condition.check(current) { presenter.cell(for: $0).entityTag } }
    }

    /// The slice a writer reads: its scope's, or the whole list.
    public func slice(writtenBy scope: WriteScope?) -> SliceRequest {
        guard let scope, let claim = definition.scope?.claim else { return .whole }
        return SliceRequest(claims: [claim: scope.value])
    }

    /// Refuses an item id no store holds (one with U+0000) as not found, before a store is
    /// asked for it.
    private static func requireStorable(_ id: String) throws(DataMediatorError) {
        guard id.holdsNUL else { return }
        throw DataMediatorError(.unknownItem, "No item has an id with the character U+0000.")
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
}
