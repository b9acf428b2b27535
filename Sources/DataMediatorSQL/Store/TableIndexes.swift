import DataMediator
import Synchronization

/// The indexes a store has made on each of its tables for the lists over them, so that a
/// list (or a view, or a slice) whose order an index already serves gets none of its own:
/// every write keeps every index (a user's `mine` and the global `transactions` over one
/// table, say, often read the same orders).
public final class TableIndexes: Sendable {
    /// Each table's indexes, as the columns ``KeysetSQL/indexColumns(for:leading:)`` gives.
    private let made = Mutex<[String: [[(field: String, term: String)]]]>([:])

    /// A store's record, empty.
    public init() {}

    /// Whether an index is wanted on `table` for `view` led by `leading`: true the first
    /// time no index made on the table serves it (``KeysetSQL/index(_:serves:leading:)``),
    /// which is then recorded as made.
    public func claim(_ table: String, for view: View, leading: [String], keyset: KeysetSQL) -> Bool {
        made.withLock { made in
            let indexes = made[table, default: []]
            guard !indexes.contains(where: { keyset.index($0, serves: view, leading: leading) }) else { return false }
            made[table] = indexes + [keyset.indexColumns(for: view, leading: leading)]
            return true
        }
    }
}
