import GRDB
import Synchronization

/// Which statement texts a SQLite store's connections keep compiled (GRDB's statement
/// cache, per connection, which never lets one go): the first ``capacity`` texts; any
/// other is compiled for its one run and freed.
///
/// The texts a store runs are few for its reads, but its writes have one per set of
/// fields a body names (a `PATCH` writes only those): a writer naming every subset of a
/// list's twenty fields in turn would have had each connection keep a million compiled
/// statements.
final class SQLiteStatementTexts: Sendable {
    private let kept = Mutex<Set<String>>([])
    /// How many texts are kept compiled at most.
    let capacity: Int

    /// Keeps at most `capacity` texts compiled.
    init(capacity: Int = 1_024) {
        self.capacity = capacity
    }

    /// A statement of `sql` on `db`: its connection's compiled one when the text is kept
    /// (or there is room to keep it), else one compiled for this run.
    func statement(_ sql: String, on db: Database) throws -> Statement {
        let keeps = kept.withLock { kept in
            if kept.contains(sql) { return true }
            guard kept.count < capacity else { return false }
            kept.insert(sql)
            return true
        }
        return keeps ? try db.cachedStatement(sql: sql) : try db.makeStatement(sql: sql)
    }
}
