import DataMediator
import DataMediatorPostgres
import DataMediatorSQL
import DataMediatorTesting
import Foundation
import Logging
import PostgresNIO

/// A fresh database on the tests' PostgreSQL server, with a running store over it.
///
/// The server is the one `DATA_MEDIATOR_TEST_DATABASE_URL` names (`scripts/test` starts
/// one with `scripts/test-postgres`); without it the PostgreSQL tests fail, they do not
/// skip. Each fixture gets its own database, so tests run in parallel without meeting.
final class PostgresFixture: Sendable {
    let store: PostgresStore
    let url: String
    private let running: Task<Void, Never>

    static let logger = Logger(label: "data-mediator.tests.postgres")

    /// The server's URL, or a failure that says how to get one.
    static func serverURL() throws -> String {
        guard let url = ProcessInfo.processInfo.environment["DATA_MEDIATOR_TEST_DATABASE_URL"], !url.isEmpty else {
            throw FixtureError(
                "DATA_MEDIATOR_TEST_DATABASE_URL is not set: run scripts/test, or start a server with "
                    + "`scripts/test-postgres start DIR` and export the URL it prints"
            )
        }
        return url
    }

    /// One client to the server's `postgres` database that creates the test databases.
    private static let admin: (client: PostgresClient, task: Task<Void, Never>)? = {
        guard let url = try? serverURL(),
            let store = try? PostgresStore(
                url: url,
                maximumConnections: 4,
                keepConnectionsOpen: false,
                logger: logger
            )
        else { return nil }
        let client = store.primary
        return (client, Task { await client.run() })
    }()

    /// Creates a new database and a prepared store over it, whose pool holds up to
    /// `connections` connections that prepare reads when `prepareStatements`. The pool opens
    /// them as needed unless `keepConnectionsOpen` (as the service's does): the suite runs
    /// many stores at once against one server.
    convenience init(
        readURL: Bool = false,
        connections: Int = 8,
        keepConnectionsOpen: Bool = false,
        prepareStatements: Bool = true
    ) async throws {
        let server = try Self.serverURL()
        guard let admin = Self.admin else { throw FixtureError("cannot reach \(server)") }
        let name = "dm_test_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased())"
        try await admin.client.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"))
        guard var parts = URLComponents(string: server) else { throw FixtureError("bad URL \(server)") }
        parts.path = "/" + name
        try await self.init(
            url: parts.string ?? server,
            readURL: readURL,
            connections: connections,
            keepConnectionsOpen: keepConnectionsOpen,
            prepareStatements: prepareStatements
        )
    }

    /// Another store over the database of `fixture` (another replica of the service).
    convenience init(sharing fixture: PostgresFixture) async throws {
        try await self.init(
            url: fixture.url,
            readURL: false,
            connections: 4,
            keepConnectionsOpen: false,
            prepareStatements: true
        )
    }

    /// A prepared store over the database at `url`.
    private init(
        url: String,
        readURL: Bool,
        connections: Int,
        keepConnectionsOpen: Bool,
        prepareStatements: Bool
    ) async throws {
        self.url = url
        let store = try PostgresStore(
            url: url,
            readURL: readURL ? url : nil,
            maximumConnections: connections,
            // The whole suite creates databases and runs in parallel on two cores: a
            // statement may wait longer than the product's 5 s before the server answers.
            timeout: .seconds(60),
            keepConnectionsOpen: keepConnectionsOpen,
            prepareStatements: prepareStatements,
            logger: Self.logger
        )
        self.store = store
        running = Task {
            await withDiscardingTaskGroup { group in
                for client in store.clients { group.addTask { await client.run() } }
            }
        }
        try await store.prepare()
    }

    deinit {
        running.cancel()
    }

    /// Shuts the store's clients down, as a service that stops does before its other parts.
    func stopClients() async {
        running.cancel()
        await running.value
    }

    /// Inserts items into the sample table (created by the store from the sample source).
    func insert(_ items: [Item], into table: String = "sample") async throws {
        let fields = ["id", "group", "score", "created", "kind", "title"]
        for item in items {
            var bindings = PostgresBindings()
            for field in fields {
                switch item[field] {
                case .integer(let whole): bindings.append(whole)
                case .string(let text): bindings.append(text)
                default: bindings.appendNull()
                }
            }
            let names = fields.map(SQL.quote).joined(separator: ", ")
            try await store.primary.query(
                PostgresQuery(
                    unsafeSQL: "INSERT INTO \(table) (\(names)) VALUES ($1, $2, $3, $4, $5, $6)",
                    binds: bindings
                )
            )
        }
    }
}

/// A fixture that could not be set up.
struct FixtureError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
