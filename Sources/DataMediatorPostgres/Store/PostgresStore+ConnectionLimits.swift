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
    /// can.
    ///
    /// The service's pool opens all of them at start and reopens any that closes (one of
    /// them listens for changes); a server that refuses some has the pool retry them for
    /// good while requests wait, and the start ended in "did not answer in time". Other
    /// clients' connections count against the same limits, but they come and go: only the
    /// limits themselves are checked.
    func connectionLimitProblem(
        _ connection: PostgresConnection,
        _ configuration: PostgresClient.Configuration
    ) async throws -> String? {
        let kept = configuration.options.maximumConnections
        let rows = try await connection.query(PostgresQuery(unsafeSQL: Self.connectionLimitsSQL), logger: logger)
        var limits: [(limit: Int, what: String)] = []
        for try await (server, role, database) in rows.decode((Int, Int, Int).self) {
            limits = [
                (server, "max_connections, less the connections it keeps for superusers"),
                (role, "the role's CONNECTION LIMIT"),
                (database, "the database's CONNECTION LIMIT"),
            ].filter { $0.0 >= 0 }
        }
        guard let tightest = limits.min(by: { $0.limit < $1.limit }), tightest.limit < kept else { return nil }
        let host = configuration.host ?? "localhost"
        let port = configuration.port ?? 5432
        let user = configuration.username
        return "PostgreSQL at \(host):\(port) lets user '\(user)' open \(tightest.limit) connections to database "
            + "'\(configuration.database ?? user)' (\(tightest.what)), and the store's pool opens up to \(kept): "
            + "allow more, or open fewer (\(poolSizeSetting))"
    }
}
