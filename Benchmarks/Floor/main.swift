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
    if let cursor = request.uri.queryParameters["cursor"] {
        let parts = cursor.split(separator: ",")
        guard parts.count == 2, let id = Int64(parts[1]) else { throw HTTPError(.badRequest) }
        sql = Page.afterSQL
        arguments = [String(parts[0]), id]
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
        var buffer = ByteBuffer()
        buffer.reserveCapacity(4096)
        buffer.writeString(#"{"items":["#)
        var next = ""
        let rows = try Row.fetchCursor(db.cachedStatement(sql: sql), arguments: arguments)
        var first = true
        while let row = try rows.next() {
            let id: Int64 = row[0]
            let createdAt: String = row[4]
            buffer.writeString(first ? #"{"id":"# : #",{"id":"#)
            first = false
            buffer.writeString(String(id))
            buffer.writeString(#","player":"#)
            writeString(row[1], to: &buffer)
            buffer.writeString(#","points":"#)
            buffer.writeString(String(row[2] as Int64))
            buffer.writeString(#","reason":"#)
            writeString(row[3], to: &buffer)
            buffer.writeString(#","created_at":"#)
            writeString(createdAt, to: &buffer)
            buffer.writeString(#","rev":"#)
            buffer.writeString(String(row[5] as Int64))
            buffer.writeString("}")
            next = "\(createdAt),\(id)"
        }
        buffer.writeString(#"],"next":"#)
        writeString(next, to: &buffer)
        buffer.writeString("}")
        return buffer
    }

    /// `text` as a JSON string; escapes quotes and backslashes (the demo's text has no
    /// control characters).
    static func writeString(_ text: String, to buffer: inout ByteBuffer) {
        buffer.writeInteger(UInt8(ascii: "\""))
        if text.utf8.contains(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            for byte in text.utf8 {
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { buffer.writeInteger(UInt8(ascii: "\\")) }
                buffer.writeInteger(byte)
            }
        } else {
            buffer.writeString(text)
        }
        buffer.writeInteger(UInt8(ascii: "\""))
    }
}
