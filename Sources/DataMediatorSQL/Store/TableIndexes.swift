import DataMediator
import Synchronization

/// The indexes a store has made on each of its tables for the lists over them, so that a
/// list (or a view, or a slice) whose order an index already serves gets none of its own:
/// every write keeps every index (a user's `mine` and the global `transactions` over one
/// table, say, often read the same orders).
public final class TableIndexes: Sendable {
    /// Each table's indexes, as the columns ``KeysetSQL/indexColumns(for:leading:)`` gives
    /// and the statement that makes each.
    private let made = Mutex<[String: [(columns: [(field: String, term: String)], statement: String)]]>([:])

    /// A store's record, empty.
    public init() {}

    /// The statement that makes an index on `table` for `view` led by `leading` when one is
    /// wanted: the first time no index made on the table serves it
    /// (``KeysetSQL/index(_:serves:leading:)``), which is then recorded as made; nil after.
    public func claim(_ table: String, for view: View, leading: [String], keyset: KeysetSQL) -> String? {
        made.withLock { made in
            let indexes = made[table, default: []]
            guard !indexes.contains(where: { keyset.index($0.columns, serves: view, leading: leading) }) else {
                return nil
            }
            let statement = keyset.indexStatement(for: view, on: table, leading: leading)
            made[table] = indexes + [(keyset.indexColumns(for: view, leading: leading), statement)]
            return statement
        }
    }

    /// The statements that make every index recorded on `table`, for a table another
    /// program replaced (its indexes went with the old one, ``OutsideWrites``).
    public func statements(on table: String) -> [String] {
        made.withLock { $0[table, default: []].map(\.statement) }
    }
}
