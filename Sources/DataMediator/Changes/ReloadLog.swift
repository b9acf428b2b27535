/// The change feed of a list that cannot say which item changed (a query over other
/// tables, or a read-only list over a table another list writes): one `reload` when a
/// table it reads was written after the version asked for.
public struct ReloadLog: ChangeLog {
    private let lastChange: @Sendable () async throws -> (lastChange: Int64, version: Int64)

    /// Creates a reload log over a reader of the source's last change: the store's version
    /// at the last write to a table the list reads (0 when none), and the store's version,
    /// read together.
    public init(lastChange: @escaping @Sendable () async throws -> (lastChange: Int64, version: Int64)) {
        self.lastChange = lastChange
    }

    /// A `reload` at the store's version of the last write to the list's tables, when that
    /// is after `since`; nothing otherwise.
    ///
    /// - Throws: `historyGone` when `since` is newer than the store's version.
    public func changes(of view: View, since: Int64, limit: Int) async throws -> ChangeWindow {
        let (last, version) = try await lastChange()
        try DataMediatorError.checkHistory(since: since, floor: 0, version: version)
        guard last > since, limit > 0 else { return ChangeWindow(changes: [], version: version) }
        return ChangeWindow(
            changes: [Change(operation: .reload, version: last, id: "", item: nil, placement: nil)],
            version: version
        )
    }
}
