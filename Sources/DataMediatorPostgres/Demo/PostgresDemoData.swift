import DataMediatorSQL
import PostgresNIO

/// The built-in demo's data in a PostgreSQL database: the same rows as the SQLite demo
/// (``DataMediatorSQL/DemoRows``), in tables of the same columns.
public enum PostgresDemoData {
    /// Rows per insert statement (each column bound as one array).
    private static let batch = 10_000

    /// Creates and fills the demo's tables unless they exist; replicas starting together
    /// create them once.
    ///
    /// - Returns: whether the demo was created (false when its tables were there).
    @discardableResult
    public static func create(in store: PostgresStore, transactions count: Int) async throws -> Bool {
        try await store.changeSchema { connection in
            let rows = try await connection.query(
                "SELECT to_regclass('transactions') IS NOT NULL",
                logger: store.logger
            )
            for try await exists in rows.decode(Bool.self) where exists { return false }
            for statement in schema {
                try await connection.query(PostgresQuery(unsafeSQL: statement), logger: store.logger)
            }
            var iterator = DemoRows.transactions(count: count).makeIterator()
            var done = false
            while !done {
                var ids: [Int64] = []
                var players: [String] = []
                var points: [Int64] = []
                var reasons: [String] = []
                var times: [String] = []
                var games: [Int64] = []
                while ids.count < batch, let row = iterator.next() {
                    ids.append(row.id)
                    players.append(row.player)
                    points.append(row.points)
                    reasons.append(row.reason)
                    times.append(row.createdAt)
                    games.append(row.game)
                }
                done = ids.count < batch
                guard !ids.isEmpty else { break }
                try await connection.query(
                    """
                    INSERT INTO transactions (id, player, points, reason, created_at, game)
                    SELECT * FROM unnest(\(ids)::bigint[], \(players)::text[], \(points)::bigint[], \(reasons)::text[],
                        \(times)::text[], \(games)::bigint[])
                    """,
                    logger: store.logger
                )
            }
            for row in DemoRows.expansions() {
                try await connection.query(
                    """
                    INSERT INTO expansions (id, name, category, released_on, price)
                    VALUES (\(row.id), \(row.name), \(row.category), \(row.releasedOn), \(row.price))
                    """,
                    logger: store.logger
                )
            }
            try await connection.query("ANALYZE transactions", logger: store.logger)
            return true
        }
    }

    private static let schema = [
        """
        CREATE TABLE transactions (
            id bigint PRIMARY KEY,
            player text COLLATE "C" NOT NULL,
            points bigint NOT NULL,
            reason text COLLATE "C" NOT NULL,
            created_at text COLLATE "C" NOT NULL,
            game bigint,
            rev bigint NOT NULL DEFAULT 1
        )
        """,
        """
        CREATE TABLE expansions (
            id text COLLATE "C" PRIMARY KEY,
            name text COLLATE "C" NOT NULL,
            category text COLLATE "C" NOT NULL,
            released_on text COLLATE "C" NOT NULL,
            price double precision NOT NULL,
            rev bigint NOT NULL DEFAULT 1
        )
        """,
    ]
}
