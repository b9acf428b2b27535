import DataMediatorSQL
import GRDB
import Synchronization

/// Read-only connections that read a page on the calling thread, without ever waiting.
///
/// GRDB's async read runs on the reader's own queue: two thread switches per read, which
/// cost more than a page's indexed read of a few rows. Its synchronous read waits for a
/// free reader, and on a cooperative thread that wait can starve the very tasks that would
/// free one. These connections are taken without waiting: ``read(_:)`` takes a free one
/// and runs on the calling thread, or answers nil at once when all are in use, and the
/// caller reads through the pool instead.
///
/// The connections only ever read: statements outside a transaction (SQLite runs each in a
/// snapshot of its own) and short reads in one, so they are opened read-only and skip the
/// pool's per-read schema check.
final class SQLitePageReaders: Sendable {
    /// The connections not in use.
    private let idle: Mutex<[DatabaseQueue]>

    /// Opens `count` read-only connections to the SQLite file at `path`, whose pool
    /// (and so its write-ahead log) is already open.
    init(path: String, count: Int) throws {
        var configuration = GRDB.Configuration()
        configuration.readonly = true
        configuration.label = "page reader"
        idle = Mutex(try (0..<count).map { _ in try DatabaseQueue(path: path, configuration: configuration) })
    }

    /// `body`'s answer on an idle connection, on the calling thread; nil, without
    /// running `body`, when every connection is in use, and nil when SQLite answers that
    /// the database is busy (its write-ahead log being recovered or checkpointed), which
    /// the pool's reads wait out on their own threads rather than on this one. A statement
    /// refused for a table or column gone since start-up is ``SourceCheck/refused``.
    func read<T>(_ body: (Database) throws -> T) throws -> T? {
        guard let connection = idle.withLock({ $0.popLast() }) else { return nil }
        defer { idle.withLock { $0.append(connection) } }
        do {
            return try connection.inDatabase(body)
        } catch let error as DatabaseError where error.isBusy {
            return nil
        } catch let error as DatabaseError where error.isRefusedStatement {
            throw SourceCheck.refused
        }
    }
}
