/// A source that keeps a log of its changes per view (the observer pattern's history), so a
/// client holding an older version can catch up item by item.
public protocol ChangeLog: Sendable {
    /// Up to `limit` changes of `view` after version `since`, oldest first, read from one
    /// snapshot together with the source's version.
    ///
    /// - Throws: `historyGone` when `since` is older than the kept history or newer than
    ///   the source's version.
    func changes(of view: View, since: Int64, limit: Int) async throws -> ChangeWindow
}

/// Changes read from a change log, with the version of the snapshot they came from.
public struct ChangeWindow: Sendable, Hashable {
    /// The changes, in version order.
    public let changes: [Change]
    /// The source's version at the snapshot.
    public let version: Int64
    /// Whether changes after the last one but before ``version`` were left out, however
    /// few the window holds (a composite's merge is whole only up to the last version read
    /// from its busiest child): the answer must then continue after its last change.
    public let isCut: Bool

    /// Creates a change window.
    public init(changes: [Change], version: Int64, isCut: Bool = false) {
        self.changes = changes
        self.version = version
        self.isCut = isCut
    }
}
