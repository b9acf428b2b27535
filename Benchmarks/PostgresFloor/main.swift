import FloorPage
import Foundation
import Hummingbird
import Logging
import PostgresNIO

// The PostgreSQL floor for the page benchmark: the plainest keyset page a Hummingbird and
// PostgresNIO server can answer over the service's own PostgreSQL store, with none of the
// service's features: no signed cursor, no sections, no cells, no log line, no ETag, no
// Link, no metrics, no problem details, no statement timer, no version read. Not part of
// the product. `STORE=postgres scripts/bench-service` measures it next to the ceiling and
// the service, so that a run shows what the framework, PostgresNIO and PostgreSQL alone
// allow a page to cost on that machine.
//
// It answers the transactions of the demo's `feed` view (`-created_at, -id`), 20 at a
// time, one statement per page on a pooled connection (PostgresClient's own pool, as
// the service uses it), decoded straight into the body. What the stack allows, not its
// defaults: each statement is prepared once per connection (PostgresNIO's
// PostgresPreparedStatement), and the pool keeps its connections open and pings none, so it
// arms no timer per page (as the service's pool does, docs/performance.md):
//
//   GET /page                          the first 20
//   GET /page?cursor=CREATED_AT,ID     the 20 after the transaction (CREATED_AT, ID)
//
// Usage: data-mediator-postgres-floor PORT DATABASE_URL [CONNECTIONS]
let arguments = CommandLine.arguments
guard arguments.count >= 3, let port = Int(arguments[1]), let url = URLComponents(string: arguments[2]),
    let host = url.host
else {
    fatalError("usage: data-mediator-postgres-floor PORT postgres://user@host:port/database [CONNECTIONS]")
}
var configuration = PostgresClient.Configuration(
    host: host,
    port: url.port ?? 5432,
    username: url.user ?? "postgres",
    password: url.password,
    database: url.path.count > 1 ? String(url.path.dropFirst()) : nil,
    tls: .disable
)
configuration.options.maximumConnections = arguments.count > 3 ? Int(arguments[3]) ?? 4 : 4
configuration.options.minimumConnections = configuration.options.maximumConnections
configuration.options.keepAliveBehavior = nil
let client = PostgresClient(configuration: configuration)
var logger = Logger(label: "data-mediator-postgres-floor")
logger.logLevel = .critical
let quiet = logger

/// The first page, prepared once per connection.
struct FirstPage: PostgresPreparedStatement {
    typealias Row = (Int64, String, Int64, String, String, Int64)
    static let sql = """
        SELECT id, player, points, reason, created_at, rev FROM transactions
        ORDER BY created_at DESC NULLS LAST, id DESC NULLS LAST LIMIT 20
        """

    func makeBindings() -> PostgresBindings { PostgresBindings() }
    func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
}

/// The page after a cursor, prepared once per connection.
struct PageAfter: PostgresPreparedStatement {
    typealias Row = FirstPage.Row
    static let sql = """
        SELECT id, player, points, reason, created_at, rev FROM transactions
        WHERE (created_at, id) < ($1, $2)
        ORDER BY created_at DESC NULLS LAST, id DESC NULLS LAST LIMIT 20
        """
    let cursor: FloorCursor

    func makeBindings() -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 2)
        bindings.append(cursor.createdAt)
        bindings.append(cursor.id)
        return bindings
    }
    func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
}

let router = Router()
router.get("/page") { request, _ in
    var page = FloorPage()
    if let text = request.uri.queryParameters["cursor"] {
        guard let cursor = FloorCursor(String(text)) else { throw HTTPError(.badRequest) }
        for try await (id, player, points, reason, createdAt, rev) in try await client.execute(
            PageAfter(cursor: cursor),
            logger: quiet
        ) {
            page.append(id: id, player: player, points: points, reason: reason, createdAt: createdAt, rev: rev)
        }
    } else {
        for try await (id, player, points, reason, createdAt, rev) in try await client.execute(
            FirstPage(),
            logger: quiet
        ) {
            page.append(id: id, player: player, points: points, reason: reason, createdAt: createdAt, rev: rev)
        }
    }
    return Response(
        status: .ok,
        headers: [.contentType: "application/json"],
        body: ResponseBody(byteBuffer: page.finish())
    )
}
let app = Application(
    router: router,
    configuration: .init(address: .hostname("127.0.0.1", port: port)),
    services: [client],
    logger: quiet
)
try await app.runService()
