import DataMediator
import Synchronization

/// The writable lists over each table of a store: a write through any of them records what
/// it did in the change log of every one, so that each list's changes are whole (a user's
/// `mine` and the global `transactions` over one table, say).
public final class TableWriters: Sendable {
    /// What a write needs of one list over the table: how to read its row and its views,
    /// its recorder and its log.
    struct Observer: Sendable {
        let reader: SQLListReader
        let recorder: ChangeRecorder
        let changeLog: SQLChangeLog
    }

    private let observers = Mutex<[String: [Observer]]>([:])

    /// An empty set, one per store.
    public init() {}

    func add(_ observer: Observer, for table: String) {
        observers.withLock { $0[table, default: []].append(observer) }
    }

    func observers(of table: String) -> [Observer] {
        observers.withLock { $0[table] ?? [] }
    }
}
