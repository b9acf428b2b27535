/// Changes a list's items: the observer pattern's source of new data.
///
/// Every write is one transaction: it is durable when the call returns, raises the
/// source's version by one, and sets the item's revision (1 when created, one more on
/// each change). Fields not given are `null` after an insert or a replace.
public protocol ItemWriter: Sendable {
    /// Inserts an item; a nil `id` lets the store choose one.
    ///
    /// With an `idempotency` key the store keeps the key with the write, in the same
    /// transaction, for at least ``IdempotencyKey/retention``: a later insert with the same
    /// key and fingerprint writes nothing and returns the first result (`replayed`).
    ///
    /// `precondition` sees the source's version in the write's own transaction (after a
    /// replay is answered, before the id is looked up), so that of many inserts that expect
    /// one state of the list, one is stored.
    ///
    /// - Throws: `conflict` when an item with `id` exists; `invalidItem` when `id` cannot
    ///   be an id of the list (e.g. not a whole number for integer ids);
    ///   `idempotencyKeyReused` when the key was used with another fingerprint; whatever
    ///   `precondition` throws.
    func insert(
        id: String?,
        fields: [String: JSONValue],
        idempotency: IdempotencyKey?,
        precondition: VersionPrecondition?
    ) async throws -> WriteResult

    /// Replaces the item with `id`, or creates it when there is none. With a `scope`, an
    /// item of another slice is refused as if it did not exist (`unknownItem`), in the
    /// write's own transaction; so is an item (or none) that `precondition` refuses.
    func replace(
        id: String,
        fields: [String: JSONValue],
        scope: WriteScope?,
        precondition: WritePrecondition?
    ) async throws -> WriteResult

    /// Applies a JSON merge patch to the fields of the item with `id`; `check` sees the
    /// merged fields before anything is stored and may throw to refuse them. With a
    /// `scope`, an item of another slice does not exist, and the merged fields keep the
    /// caller's value of the scope field. `precondition` sees the item as it stands, in
    /// the write's own transaction.
    ///
    /// - Throws: `unknownItem` when there is no such item, and whatever `precondition` or
    ///   `check` throws.
    func patch(
        id: String,
        with patch: JSONValue,
        scope: WriteScope?,
        precondition: WritePrecondition?,
        check: @escaping @Sendable ([String: JSONValue]) throws -> Void
    ) async throws -> WriteResult

    /// Deletes the item with `id` and returns the source's new version; with a `scope`,
    /// only an item of that slice, and with a `precondition`, only one it takes.
    ///
    /// - Throws: `unknownItem` when there is no such item; whatever `precondition` throws.
    func delete(id: String, scope: WriteScope?, precondition: WritePrecondition?) async throws -> Int64
}

/// A write's check of the item as it stands in the write's own transaction (nil: there is
/// none), which throws to refuse the write: a ``WriteCondition`` with its tags.
public typealias WritePrecondition = @Sendable (Item?) throws -> Void

/// An insert's check of the source's version as it stands in the write's own transaction,
/// which throws to refuse the write: a `POST`'s `If-Match` naming the list's first page,
/// whose tag holds only while the version it showed does.
public typealias VersionPrecondition = @Sendable (Int64) throws -> Void

extension ItemWriter {
    /// ``insert(id:fields:idempotency:precondition:)`` whatever the source's version.
    public func insert(
        id: String?,
        fields: [String: JSONValue],
        idempotency: IdempotencyKey?
    ) async throws
        -> WriteResult
    {
        try await insert(id: id, fields: fields, idempotency: idempotency, precondition: nil)
    }

    /// ``replace(id:fields:scope:)`` with full access.
    public func replace(id: String, fields: [String: JSONValue]) async throws -> WriteResult {
        try await replace(id: id, fields: fields, scope: nil, precondition: nil)
    }

    /// ``replace(id:fields:scope:precondition:)`` without a precondition.
    public func replace(id: String, fields: [String: JSONValue], scope: WriteScope?) async throws -> WriteResult {
        try await replace(id: id, fields: fields, scope: scope, precondition: nil)
    }

    /// ``patch(id:with:scope:precondition:check:)`` without a precondition.
    public func patch(
        id: String,
        with patch: JSONValue,
        scope: WriteScope?,
        check: @escaping @Sendable ([String: JSONValue]) throws -> Void
    ) async throws -> WriteResult {
        try await self.patch(id: id, with: patch, scope: scope, precondition: nil, check: check)
    }

    /// ``delete(id:scope:precondition:)`` without a precondition.
    public func delete(id: String, scope: WriteScope?) async throws -> Int64 {
        try await delete(id: id, scope: scope, precondition: nil)
    }

    /// ``patch(id:with:scope:check:)`` with full access.
    public func patch(
        id: String,
        with patch: JSONValue,
        check: @escaping @Sendable ([String: JSONValue]) throws -> Void
    ) async throws -> WriteResult {
        try await self.patch(id: id, with: patch, scope: nil, precondition: nil, check: check)
    }

    /// ``delete(id:scope:)`` with full access.
    public func delete(id: String) async throws -> Int64 {
        try await delete(id: id, scope: nil, precondition: nil)
    }
}

/// What a write stored.
public struct WriteResult: Sendable, Hashable {
    /// The item as stored, revision included.
    public let item: Item
    /// The source's version after the write.
    public let version: Int64
    /// Whether the write created the item.
    public let created: Bool
    /// Whether this is the stored result of an earlier insert with the same idempotency key.
    public let replayed: Bool

    /// Creates a write result.
    public init(item: Item, version: Int64, created: Bool, replayed: Bool = false) {
        self.item = item
        self.version = version
        self.created = created
        self.replayed = replayed
    }
}
