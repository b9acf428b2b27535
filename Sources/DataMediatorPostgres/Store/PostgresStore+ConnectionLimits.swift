import DataMediator
import DataMediatorSQL
import PostgresNIO

extension PostgresStore {
    /// The most connections the server lets the store's user open to its database, and
    /// which limit that is: the server's (`max_connections` less the slots it keeps for
    /// superusers and reserved roles), the role's `CONNECTION LIMIT`, or the database's;
    /// superusers are held to `max_connections` only. Read once, at start.
    static let connectionLimitsSQL = """
        SELECT CASE WHEN r.rolsuper THEN current_setting('max_connections')::int
                ELSE current_setting('max_connections')::int
                    - current_setting('superuser_reserved_connections')::int
                    - COALESCE(current_setting('reserved_connections', true)::int, 0) END,
            CASE WHEN r.rolsuper THEN -1 ELSE r.rolconnlimit END,
            CASE WHEN r.rolsuper THEN -1 ELSE d.datconnlimit END
        FROM pg_roles AS r, pg_database AS d
        WHERE r.rolname = current_user AND d.datname = current_database()
        """

    /// Why the server (the primary, or the read replica) that `configuration` reaches over
    /// `connection` cannot give its pool as many connections as it opens, or nil when it
    /// can. `alongside` is the other pool's configuration when it reaches the same server
    /// (a read URL that names the primary's host and port): its connections count against
    /// the server's limit, and against the role's and the database's when it shares them.
    ///
    /// The service's pool opens all of them at start and reopens any that closes (one of
    /// them listens for changes); a server that refuses some has the pool retry them for
    /// good while requests wait, and the start ended in "did not answer in time". Other
    /// clients' connections count against the same limits, but they come and go: only the
    /// limits themselves are checked.
    func connectionLimitProblem(
        _ connection: PostgresConnection,
        _ configuration: PostgresClient.Configuration,
        alongside other: PostgresClient.Configuration? = nil
    ) async throws -> String? {
        let kept = configuration.options.maximumConnections
        let others = other?.options.maximumConnections ?? 0
        let sameUser = other?.username == configuration.username
        let sameDatabase = (other?.database ?? other?.username) == (configuration.database ?? configuration.username)
        let rows = try await connection.query(PostgresQuery(unsafeSQL: Self.connectionLimitsSQL), logger: logger)
        // Each limit, what it is, and how many of the store's connections count against it.
        var limits: [(limit: Int, what: String, opened: Int)] = []
        for try await (server, role, database) in rows.decode((Int, Int, Int).self) {
            limits = [
                (server, "max_connections, less the connections it keeps for superusers", kept + others),
                (role, "the role's CONNECTION LIMIT", kept + (sameUser ? others : 0)),
                (database, "the database's CONNECTION LIMIT", kept + (sameDatabase ? others : 0)),
            ].filter { $0.0 >= 0 }
        }
        guard let short = limits.filter({ $0.limit < $0.opened }).min(by: { $0.limit < $1.limit }) else { return nil }
        let host = configuration.host ?? "localhost"
        let port = configuration.port ?? 5432
        let user = configuration.username
        let pools =
            short.opened > kept
            ? "the store's pools (the primary's and the read replica's, on this one server) open up to \(short.opened)"
            : "the store's pool opens up to \(kept)"
        return "PostgreSQL at \(host):\(port) lets user '\(user)' open \(short.limit) connections to database "
            + "'\(configuration.database ?? user)' (\(short.what)), and \(pools): "
            + "allow more, or open fewer (\(poolSizeSetting))"
    }

    /// Refuses a pool larger than its server allows before any pool opens a connection:
    /// each server's limits are read over a connection of its own (``prepare()`` reads them
    /// again, for a command that runs the pools first). A pool started first opens its
    /// connections at once and retries those refused, so a mistyped size took a shared
    /// server's every free connection from its other clients while the start went on. A
    /// server that cannot be reached now is left to ``prepare()``, which says why.
    ///
    /// - Throws: `StoreError` naming the limit when a pool is larger.
    public func checkConnectionLimits() async throws {
        let alongside = readerConfiguration.flatMap { Self.sameServer($0, primaryConfiguration) ? $0 : nil }
        var servers = [(primaryConfiguration, primaryTLS, alongside)]
        if let readerConfiguration, let readerTLS {
            servers.append((readerConfiguration, readerTLS, alongside == nil ? nil : primaryConfiguration))
        }
        for (configuration, tls, other) in servers {
            guard let connection = try? await standaloneConnection(configuration, tls) else { continue }
            let problem = try? await connectionLimitProblem(connection, configuration, alongside: other)
            try? await connection.close()
            if let problem = problem ?? nil { throw StoreError(list: nil, problem) }
        }
    }

    /// Whether two configurations reach one server (the same host and port).
    static func sameServer(_ one: PostgresClient.Configuration, _ other: PostgresClient.Configuration) -> Bool {
        (one.host ?? "localhost") == (other.host ?? "localhost") && (one.port ?? 5432) == (other.port ?? 5432)
    }
}
