import FloorPage
import GRDB
import Hummingbird
import Synchronization

// The floor for the page benchmark: the plainest fast keyset page a Hummingbird and GRDB
// server can answer over the service's own store, with none of the service's features:
// no signed cursor, no sections, no cells, no log line, no ETag, no Link, no metrics, no
// problem details. Not part of the product. `scripts/bench-service` measures it next to
// the ceiling and the service, so that a run shows what the framework and SQLite alone
// allow a page to cost on that machine.
//
// It answers the transactions of the demo's `feed` view (`-created_at, -id`), 20 at a
// time, read on the request's own thread from one of a few read-only connections (the
// cached statement, no thread switch) and written into the body by hand (no Codable):
//
//   GET /page                          the first 20
//   GET /page?cursor=CREATED_AT,ID     the 20 after the transaction (CREATED_AT, ID)
//
// Usage: data-mediator-floor PORT SQLITE_FILE
let arguments = CommandLine.arguments
guard arguments.count == 3, let port = Int(arguments[1]) else {
    fatalError("usage: data-mediator-floor PORT SQLITE_FILE")
}
let readers = try Readers(path: arguments[2], count: 4)

let router = Router()
router.get("/page") { request, _ in
    var sql = Page.firstSQL
    var arguments: StatementArguments = []
    if let text = request.uri.queryParameters["cursor"] {
        guard let cursor = FloorCursor(String(text)) else { throw HTTPError(.badRequest) }
        sql = Page.afterSQL
        arguments = [cursor.createdAt, cursor.id]
    }
    let body = try readers.read { db in try Page.json(db, sql: sql, arguments: arguments) }
    return Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: body))
}
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
try await app.runService()

/// Read-only connections taken from an idle list, used on the calling thread.
final class Readers: Sendable {
    /// The connections not in use.
    private let idle: Mutex<[DatabaseQueue]>

    /// Opens `count` read-only connections to the SQLite file at `path`; more than the
    /// cores, so that a request never finds none idle.
    init(path: String, count: Int) throws {
        var configuration = Configuration()
        configuration.readonly = true
        idle = Mutex(try (0..<count).map { _ in try DatabaseQueue(path: path, configuration: configuration) })
    }

    /// `body`'s answer on an idle connection.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        guard let connection = idle.withLock({ $0.popLast() }) else { throw HTTPError(.serviceUnavailable) }
        defer { idle.withLock { $0.append(connection) } }
        return try connection.inDatabase(body)
    }
}

/// A page of transactions and the cursor of the next: `{"items":[...],"next":"..."}`.
enum Page {
    /// The columns of a transaction, in the order `json` reads them.
    static let columns = "id, player, points, reason, created_at, rev"
    /// The first page, in the feed's order.
    static let firstSQL = "SELECT \(columns) FROM transactions ORDER BY created_at DESC, id DESC LIMIT 20"
    /// The page after the transaction (created_at, id): one range of the feed's index, as
    /// a row value (spelled with `OR`, SQLite scans the index from its start instead).
    static let afterSQL =
        "SELECT \(columns) FROM transactions WHERE (created_at, id) < (?, ?) ORDER BY created_at DESC, id DESC LIMIT 20"

    /// The page that `sql` reads, as JSON.
    static func json(_ db: Database, sql: String, arguments: StatementArguments) throws -> ByteBuffer {
        var page = FloorPage()
        let rows = try Row.fetchCursor(db.cachedStatement(sql: sql), arguments: arguments)
        while let row = try rows.next() {
            page.append(id: row[0], player: row[1], points: row[2], reason: row[3], createdAt: row[4], rev: row[5])
        }
        return page.finish()
    }
}
