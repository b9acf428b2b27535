import DataMediator

/// The store's version, which orders every write of a SQL store: how each dialect keeps
/// it, reads it and raises it.
///
/// SQLite sums per-table counters (one writer at a time, so the sum rises by one per write);
/// PostgreSQL keeps one row that every write locks first, so the writes of every replica
/// are applied one at a time in version order. Either way, every list of one store (a
/// composite's children among them) shares one version space.
public enum StoreVersion {
    /// The statement that reads the store's version.
    public static func currentSQL(_ dialect: SQLDialect) -> String {
        switch dialect {
        case .sqlite: return "SELECT COALESCE(SUM(version), 0) FROM \(ServiceTables.versions)"
        case .postgres: return "SELECT version FROM \(ServiceTables.store)"
        }
    }

    /// The store's version in the session's transaction.
    public static func current(_ session: any SQLSession) async throws -> Int64 {
        try await session.integer(currentSQL(session.dialect))
    }

    /// How many times the session's statement and lock bounds a write may wait for the
    /// version lock.
    public static let lockWaitFactor = 4

    /// How long a PostgreSQL write that holds the version lock waits for a row lock (one its
    /// foreign keys, triggers or cascades reach, held by another program or by another write
    /// waiting for the version lock) before it ends, releasing the version lock, to run
    /// again: the whole store's writes wait while it waits. Long enough for another
    /// program's short transaction to end.
    public static let underLockWait = "100ms"

    /// ``underLockWait`` for a write that ran into a held row before: the row is likely
    /// held still, so each run holds the store's other writes as little as it can.
    public static let underLockWaitAgain = "10ms"

    /// The name of the setting in which ``lock(_:reading:thenLocking:)`` keeps the
    /// session's own lock bound, for the raise to put back (``postgresBump(for:reading:with:)``):
    /// a commit that notifies waits for PostgreSQL's notification queue lock, which every
    /// notifying commit of the server takes in turn (every database's, held until the
    /// commit is flushed), and a wait bounded by ``underLockWait`` there ended writes with
    /// 55P03 at their `COMMIT` when the server was busy.
    static let commitLockBound = "data_mediator.lock_timeout"

    /// Waits until no other write of the store runs and keeps the others waiting until
    /// this transaction ends, so that it sees every earlier write and gets the next version
    /// (SQLite's single writer does this by itself).
    ///
    /// On PostgreSQL the wait is bounded by ``lockWaitFactor`` times the session's
    /// `statement_timeout` and `lock_timeout` (none when they are lifted): a write waiting
    /// here is queued behind the writes before it, each holding the lock to its commit,
    /// not stuck; under a steady load the queue passed the plain bound a few times in ten
    /// minutes (docs/reliability.md). The bounds are put back (the lock bound at most
    /// ``underLockWait``) once the lock is held, by the statement that takes it: its outer
    /// select runs only on the row its inner one locked (a subquery that locks rows is never
    /// merged into the query around it), and a statement keeps the `statement_timeout` it
    /// started with. Two round trips, where a write holds about a dozen: each one waits its
    /// turn for a core when they are busy.
    public static func lock(_ session: any SQLSession) async throws {
        _ = try await lock(session, reading: nil)
    }

    /// The rows `row` locks (a `SELECT ... FOR UPDATE`, with the values of its placeholders;
    /// nil for none), then ``lock(_:)``, then the whole number `scalar` (a `SELECT` of one
    /// value; nil for none) reads: on PostgreSQL in the statement that takes the lock, one
    /// round trip fewer for a write; on SQLite (one writer at a time) `scalar` in a
    /// statement of its own.
    ///
    /// The row first (a write's run after one that met a held row,
    /// ``SQLSession/rowLockFirst``): a write that waits for a row another program holds does
    /// not hold the version lock meanwhile, which every other write of the store, on every
    /// table and replica, waits for. A first run takes the version lock first and its row as
    /// it reads it, so no queued write holds a row the lock holder's triggers need.
    /// Once it holds the version lock, a write waits at most ``underLockWait`` for any other
    /// row lock (its foreign keys', triggers', cascades'; unbounded when the bounds are
    /// lifted, as for an import):
    /// the store runs it again (``SQLSession/tookVersionLock()``), rather than holding every
    /// other write while another program holds the row, or deadlocking with a write that
    /// holds the row and waits for the version lock. The raise puts the session's own lock
    /// bound back for the commit (``commitLockBound``).
    public static func lock(
        _ session: any SQLSession,
        reading scalar: String?,
        thenLocking row: (sql: String, arguments: [JSONValue])? = nil
    ) async throws -> Int64? {
        guard session.dialect == .postgres else {
            guard let scalar else { return nil }
            return try await session.integer(scalar)
        }
        func scaled(_ name: String) -> String {
            "set_config('\(name)', (extract(epoch FROM current_setting('\(name)')::interval) * \(lockWaitFactor * 1000))"
                + "::bigint || 'ms', true)"
        }
        // The version's lock names the rows' count, so it runs after they are locked; the
        // scalar is read when the joined row is shown, after both.
        let locking =
            row.map {
                "(SELECT count(*) AS held FROM (\($0.sql)) AS row_rows) AS row_locked CROSS JOIN LATERAL "
                    + "(SELECT version FROM \(ServiceTables.store) WHERE row_locked.held >= 0 FOR UPDATE) AS locked"
            } ?? "(SELECT version FROM \(ServiceTables.store) FOR UPDATE) AS locked"
        let bounds = try await session.rows(
            "SELECT current_setting('statement_timeout'), current_setting('lock_timeout'), "
                + "\(scaled("statement_timeout")), \(scaled("lock_timeout"))",
            []
        )
        guard let bound = bounds.first, bound.count >= 2 else {
            throw DataMediatorError(.unavailable, "The session's statement bounds could not be read.")
        }
        let locked = try await session.rows(
            """
            SELECT set_config('statement_timeout', ?, true),
                set_config('lock_timeout', CASE WHEN ?::interval > ?::interval THEN ? ELSE ? END, true),
                set_config('\(commitLockBound)', ?, true)\(scalar.map { ", (\($0))" } ?? "")
            FROM \(locking)
            """,
            [bound[0], bound[1], .string(session.underLockWait), .string(session.underLockWait), bound[1], bound[1]]
                + (row?.arguments ?? [])
        )
        guard let lockedRow = locked.first else {
            throw DataMediatorError(.unavailable, "The store has no version row.")
        }
        session.tookVersionLock()
        guard scalar != nil else { return nil }
        return wholeNumber(lockedRow.count > 3 ? lockedRow[3] : .null)
    }

    /// A value read by a scalar as ``SQLSession/integer(_:_:)`` reads one: NULL is 0.
    static func wholeNumber(_ value: JSONValue) -> Int64 {
        guard case .integer(let whole) = value else { return 0 }
        return whole
    }

    /// Makes sure `table` has its row of versions (a table written by the API or an import).
    public static func register(_ table: String, _ session: any SQLSession) async throws {
        try await session.execute(
            "INSERT INTO \(ServiceTables.versions) (source) VALUES (?) ON CONFLICT DO NOTHING",
            [.string(table)]
        )
    }

    /// Raises the store's version by one for a write to `table`, records it as the table's
    /// last change, and (PostgreSQL) tells every replica on commit; returns the new version.
    ///
    /// - Throws: `unavailable` when the table has no row of versions (its list was never
    ///   opened by the store) or the store has no version row.
    public static func bump(for table: String, _ session: any SQLSession) async throws -> Int64 {
        try await bump(for: table, reading: nil, session).version
    }

    /// ``bump(for:_:)``, and the whole number `scalar` (a `SELECT` of one value, nil for
    /// none) reads after the raise: on PostgreSQL in the raise's statement, one round trip
    /// fewer for a write; on SQLite in a statement of its own.
    public static func bump(
        for table: String,
        reading scalar: String?,
        _ session: any SQLSession
    ) async throws -> (version: Int64, read: Int64?) {
        switch session.dialect {
        case .sqlite:
            let rows = try await session.rows(
                """
                UPDATE \(ServiceTables.versions)
                SET version = version + 1,
                    changed_at = (SELECT COALESCE(SUM(version), 0) FROM \(ServiceTables.versions)) + 1
                WHERE source = ? RETURNING changed_at
                """,
                [.string(table)]
            )
            guard case .integer(let version)? = rows.first?.first else {
                throw DataMediatorError(.unavailable, "The table '\(table)' has no version row.")
            }
            guard let scalar else { return (version, nil) }
            return (version, try await session.integer(scalar))
        case .postgres:
            let statement = postgresBump(for: table, reading: scalar)
            let rows = try await session.rows(statement.sql, statement.arguments)
            guard let row = rows.first, case .integer(let version)? = row.first else {
                throw DataMediatorError(.unavailable, "The store has no version row.")
            }
            guard scalar != nil else { return (version, nil) }
            return (version, wholeNumber(row.count > 1 ? row[1] : .null))
        }
    }

    /// The SQL term of the version a PostgreSQL raise (``postgresBump(for:reading:with:)``)
    /// produced, for the parts that statement carries.
    static let bumpedVersion = "(SELECT version FROM bumped)"

    /// The SQL term of the value `scalar` read in a PostgreSQL raise, for its parts.
    static let readAfterBump = "(SELECT value FROM read_after)"

    /// PostgreSQL's raise of the version for a write to `table` as one statement (each is a
    /// round trip): the raise, the table's mark, `scalar`'s read after it (nil: none), the
    /// notification on commit (the version, and the tag of the client the write is made for
    /// when there is one: ``WriteOrigin``) with the session's own lock bound back for the
    /// commit (``commitLockBound``), and `parts` (data-modifying `WITH` parts, which
    /// run whether or not the query reads them; they may use ``bumpedVersion`` and
    /// ``readAfterBump``), with the values of its placeholders. It answers the version, then
    /// what `scalar` read.
    static func postgresBump(
        for table: String,
        reading scalar: String?,
        with parts: [(sql: String, arguments: [JSONValue])] = []
    ) -> (sql: String, arguments: [JSONValue]) {
        var with = [
            "bumped AS (UPDATE \(ServiceTables.store) SET version = version + 1 RETURNING version)",
            "marked AS (UPDATE \(ServiceTables.versions) SET changed_at = \(bumpedVersion) WHERE source = ?)",
        ]
        if let scalar { with.append("read_after AS (SELECT (\(scalar)) AS value)") }
        with += parts.map(\.sql)
        // pg_notify's answer (void) is not selected.
        let sql = """
            WITH \(with.joined(separator: ",\n"))
            SELECT bumped.version\(scalar == nil ? "" : ", read_after.value")
            FROM bumped\(scalar == nil ? "" : " CROSS JOIN read_after")
            CROSS JOIN LATERAL (SELECT pg_notify(?, bumped.version::text || ?)) AS notified
            CROSS JOIN LATERAL (SELECT set_config('lock_timeout', COALESCE(NULLIF(current_setting('\(commitLockBound)', true), ''), current_setting('lock_timeout')), true)) AS commit_bound
            """
        let writer = WriteOrigin.client.map { WriteOrigin.isTag($0[...]) ? " " + $0 : "" } ?? ""
        return (sql, [.string(table)] + parts.flatMap(\.arguments) + [.string(ServiceTables.channel), .string(writer)])
    }

    /// The store's version at the last write through the API to one of `tables` (0 when
    /// there was none), and the store's version now, read by one statement (one snapshot,
    /// so it needs no transaction around it). No tables (a query list that names none in
    /// `versions`, whose tables are not known) stands for every table: the last write to
    /// any, so its feed says `reload` after any write rather than never.
    public static func lastChange(
        of tables: [String],
        _ session: any SQLSession
    ) async throws -> (lastChange: Int64, version: Int64) {
        let marks = Array(repeating: "?", count: tables.count).joined(separator: ", ")
        let which = tables.isEmpty ? "" : " WHERE source IN (\(marks))"
        let last = "(SELECT COALESCE(MAX(changed_at), 0) FROM \(ServiceTables.versions)\(which))"
        let both = try await session.integers(
            "SELECT \(last), (\(currentSQL(session.dialect)))",
            tables.map { .string($0) }
        )
        guard both.count == 2 else {
            throw DataMediatorError(.unavailable, "The store's version could not be read.")
        }
        return (both[0], both[1])
    }
}
