import DataMediator
import DataMediatorSQL
import PostgresNIO
import Synchronization

extension PostgresStore {
    /// Why the store cannot be read now, for readiness checks; nil when a read transaction
    /// (as pages read) answers within ``readinessBound``. Reads go to the read replica when
    /// there is one, so that is the one looked at and named.
    ///
    /// With a read replica, the service is not ready either until the replica holds what
    /// the primary held when readiness was first looked at: its store version and, for a
    /// streaming standby, its WAL position (so the lists' tables and columns too). A
    /// client's write made before this process listened for notifications is not known to
    /// it, so its reads could not wait for that write; a load balancer sends it none until
    /// the replica holds every such write. (The change listener starts listening with the
    /// store's clients, while the lists are prepared and before the server listens: the
    /// first look comes after it.)
    ///
    /// Nor is it while the primary refuses writes, once a write met it so
    /// (``readOnlyProblem()``).
    ///
    /// Then, when `sources` names lists, the service's own tables must be there and every
    /// list's source must still hold what the list reads: a column another program dropped
    /// fails every read of the list, and a service started now would refuse it.
    public func readinessProblem(checking sources: SourceCheck = SourceCheck([])) async -> String? {
        if let problem = await readOnlyProblem() { return problem }
        if let problem = await connectionProblem() {
            // The store's own table refused: say which of the service's tables are gone.
            guard problem.contains(SourceCheck.refused.message),
                let (missing, withheld) = try? await boundedStatement(
                    within: Self.readinessBound,
                    { [logger] connection in try await Self.serviceTableProblems(connection, logger: logger) }
                ),
                !missing.isEmpty || !withheld.isEmpty
            else { return problem }
            let named = try? await SourceCheck([]).problem(
                missingServiceTables: missing,
                withheldServiceTables: withheld
            ) { _ in nil }
            return named ?? problem
        }
        guard !sources.schemas.isEmpty else { return nil }
        let what = readerConfiguration == nil ? "The database" : "The read replica (DATA_MEDIATOR_DATABASE_READ_URL)"
        do {
            return try await boundedStatement(within: Self.readinessBound) { [logger] connection in
                let (missing, withheld) = try await Self.serviceTableProblems(connection, logger: logger)
                return try await sources.problem(missingServiceTables: missing, withheldServiceTables: withheld) {
                    schema in
                    do {
                        let types = try await Self.columnTypes(of: schema.from, connection, logger: logger)
                        var withheld: [String] = []
                        if schema.list.isWritable, case .table(let table) = schema.source.kind {
                            withheld = try await Self.withheldRights(
                                SourceCheck.writeRights,
                                on: table,
                                connection,
                                logger: logger
                            )
                        }
                        return SourceCheck.Columns(
                            names: types.keys.sorted(),
                            kinds: Self.columnKinds(types),
                            withheld: withheld
                        )
                    } catch  where Self.isRefusedStatement(error) {
                        return nil
                    }
                }
            }
        } catch {
            return "\(what) cannot be read right now: \(Self.shortReason(error))"
        }
    }

    /// ``ServiceTables/names(_:)`` and ``ServiceTables/functions(_:)``, read once from the
    /// schema's statements rather than on every readiness look.
    private static let serviceTables = ServiceTables.names(.postgres)
    private static let serviceFunctions = ServiceTables.functions(.postgres)

    /// The service's own tables (``ServiceTables/names(_:)``) and functions
    /// (``ServiceTables/functions(_:)``, named with their argument types) the database lacks,
    /// and the tables on which its user lacks one of ``SourceCheck/writeRights`` (another
    /// program revoked it: every write needs them), in one statement.
    static func serviceTableProblems(
        _ connection: PostgresConnection,
        logger: Logger
    ) async throws -> (missing: [String], withheld: [String]) {
        let query: PostgresQuery = """
            SELECT name, false FROM unnest(\(serviceTables)::text[]) AS name WHERE to_regclass(name) IS NULL
            UNION ALL SELECT name, false FROM unnest(\(serviceFunctions)::text[]) AS name
            WHERE to_regprocedure(name) IS NULL
            UNION ALL SELECT name, true FROM unnest(\(serviceTables)::text[]) AS name WHERE to_regclass(name) IS NOT NULL
            AND NOT (SELECT bool_and(has_table_privilege(name, granted))
            FROM unnest(\(SourceCheck.writeRights)::text[]) AS granted)
            """
        var (missing, withheld): ([String], [String]) = ([], [])
        for try await (name, isWithheld) in try await connection.query(query, logger: logger).decode(
            (String, Bool).self
        ) {
            if isWithheld { withheld.append(name) } else { missing.append(name) }
        }
        return (missing.sorted(), withheld.sorted())
    }

    /// Whether the service's tables, functions, indexes and added columns are all there and
    /// were made by this release's statements (``ServiceTables/schemaMark(_:)``), and the
    /// store's row: read from the catalog and that row, which take no lock a reader of the
    /// change log holds up (a row read's lock is the weakest, where `ALTER TABLE`'s waited).
    static func serviceTablesCurrent(_ connection: PostgresConnection, logger: Logger) async throws -> Bool {
        let marks = try await connection.query(
            "SELECT obj_description(to_regclass(\(ServiceTables.store)), 'pg_class')",
            logger: logger
        )
        var mark: String?
        for try await value in marks.decode(String?.self) { mark = value }
        guard mark == ServiceTables.schemaMark(.postgres),
            try await serviceTableProblems(connection, logger: logger).missing.isEmpty
        else { return false }
        let (indexes, columns) = ServiceTables.schemaParts(.postgres)
        let missing = try await connection.query(
            """
            SELECT (SELECT count(*) FROM unnest(\(indexes)::text[]) AS i WHERE to_regclass(i) IS NULL)
                + (SELECT count(*) FROM unnest(\(columns.map(\.0))::text[], \(columns.map(\.1))::text[]) AS c(t, n)
                    WHERE NOT EXISTS (SELECT 1 FROM pg_attribute
                        WHERE attrelid = to_regclass(c.t) AND attname = c.n AND NOT attisdropped))
                + (SELECT count(*) FROM (SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM \(unescaped: ServiceTables.store))) AS e)
            """,
            logger: logger
        )
        for try await count in missing.decode(Int64.self) { return count == 0 }
        return false
    }

    /// Why the store cannot be read now, as ``readinessProblem(checking:)`` says, before its
    /// lists' sources are looked at.
    private func connectionProblem() async -> String? {
        let what = readerConfiguration == nil ? "The database" : "The read replica (DATA_MEDIATOR_DATABASE_READ_URL)"
        let bound = "\(Self.readinessBound.components.seconds) s"
        guard readerConfiguration != nil, !startVersion.isReplayed else {
            do {
                let answered = try await Self.bounded { try await self.version() }
                guard answered == nil else { return nil }
                return readerGate.refusedConnections ?? "\(what) did not answer within \(bound)."
            } catch let error as DataMediatorError where error.message.hasPrefix(readerGate.named) {
                // It names the server already (the pool's refusal, say).
                return error.message
            } catch {
                return "\(what) cannot be read right now: \(Self.shortReason(error))"
            }
        }
        let start: StartVersion.Standing
        if let known = startVersion.standing {
            start = known
        } else {
            do {
                guard let read = try await Self.bounded({ try await self.primaryStanding() }) else {
                    return
                        "The primary did not answer within \(bound), and the read replica's readiness needs its version."
                }
                start = startVersion.note(read)
            } catch {
                return "The primary cannot be read right now, and the read replica's readiness needs its version: "
                    + Self.shortReason(error)
            }
        }
        let replica: (version: Int64, holdsPosition: Bool)
        do {
            // Bounded by ``readinessBound`` itself (its statement's own bound).
            replica = try await replicaStanding(against: start.position)
        } catch {
            return "\(what) cannot be read right now: \(Self.shortReason(error))"
        }
        guard replica.version >= start.version, replica.holdsPosition else {
            return "\(what) has not yet replayed what its primary held when this service started (version "
                + "\(start.version) at WAL position \(start.position); it holds version \(replica.version)): "
                + "a client's earlier write would be missing from its reads."
        }
        startVersion.replayed()
        return nil
    }

    /// The primary's store version and WAL position now.
    private func primaryStanding() async throws -> StartVersion.Standing {
        try await transaction(on: primaryGate, nil, writes: false) { [logger] connection in
            let query: PostgresQuery =
                "SELECT version, pg_current_wal_lsn()::text FROM \(unescaped: ServiceTables.store)"
            for try await (version, position) in try await connection.query(query, logger: logger)
                .decode((Int64, String).self)
            {
                return StartVersion.Standing(version: version, position: position)
            }
            throw DataMediatorError(.unavailable, "The store has no version row.")
        }
    }

    /// The read replica's store version, and whether it has replayed the primary's WAL up
    /// to `position` (always, for a replica that is no standby: a logical one, or a standby
    /// since promoted). A server out of recovery keeps answering the last position its
    /// recovery replayed, even one that recovered from a crash: only a standby's counts.
    private func replicaStanding(against position: String) async throws -> (version: Int64, holdsPosition: Bool) {
        try await boundedStatement(within: Self.readinessBound) { [logger] connection in
            let query: PostgresQuery = """
                SELECT version, CASE WHEN pg_is_in_recovery()
                    THEN COALESCE(pg_last_wal_replay_lsn() >= \(position)::pg_lsn, true) ELSE true END
                FROM \(unescaped: ServiceTables.store)
                """
            for try await row in try await connection.query(query, logger: logger).decode((Int64, Bool).self) {
                return (row.0, row.1)
            }
            throw DataMediatorError(.unavailable, "The store has no version row.")
        }
    }

    /// What `look` answers within ``readinessBound``; nil when it did not answer in time.
    static func bounded<Value: Sendable>(
        _ look: @escaping @Sendable () async throws -> Value
    ) async throws -> Value? {
        try await withThrowingTaskGroup(of: Value?.self) { group in
            group.addTask { try await look() }
            group.addTask {
                try await Task.sleep(for: Self.readinessBound)
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
    }

    /// How long a readiness or lag look waits for the database: a health check gives up
    /// after a few seconds, and a pool that cannot connect waits ``timeout`` for a lease.
    static let readinessBound = Duration.seconds(2)

    /// The part of `error` a readiness answer may show: what happened, not the server's
    /// message (it may name hosts or roles).
    static func shortReason(_ error: any Error) -> String {
        if let error = error as? DataMediatorError { return error.message }
        return "its connection failed or did not answer."
    }
}

/// What the primary held at a store's first readiness look, and whether its read replica
/// has been seen holding it (``PostgresStore/readinessProblem()``).
final class StartVersion: Sendable {
    /// The primary's store version and WAL position (`pg_current_wal_lsn()`, as text).
    struct Standing: Sendable {
        let version: Int64
        let position: String
    }

    private let state = Mutex<(standing: Standing?, replayed: Bool)>((nil, false))

    /// What was noted; nil before the first look read it.
    var standing: Standing? { state.withLock { $0.standing } }

    /// Whether the read replica was seen holding it: it is not looked at again.
    var isReplayed: Bool { state.withLock { $0.replayed } }

    /// Notes `standing` unless one was noted already (two first looks at once); returns
    /// the one noted.
    func note(_ standing: Standing) -> Standing {
        state.withLock { state in
            if let known = state.standing { return known }
            state.standing = standing
            return standing
        }
    }

    /// Notes that the read replica holds it.
    func replayed() {
        state.withLock { $0.replayed = true }
    }
}
