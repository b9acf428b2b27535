/// One change of what a session shows: the batch that leads from the snapshot published
/// before to ``snapshot``, and that snapshot.
public struct ListUpdate: Sendable {
    /// What changed, as index paths for batch updates and as ids for a diffable data source.
    public let batch: BatchUpdate
    /// What the session shows now.
    public let snapshot: ListSnapshot
}
