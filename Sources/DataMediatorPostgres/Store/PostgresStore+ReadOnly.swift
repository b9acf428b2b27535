import DataMediator
import PostgresNIO
import Synchronization

/// A primary that refuses writes for being read-only: `default_transaction_read_only` set
/// on its database or user (a DBA's freeze for maintenance), or a standby the primary's
/// URL reaches after a failover. Its writes answer `unavailable` (the client retries
/// later), the connection that met it is closed (its session keeps the setting it began
/// with), and readiness names it until the primary takes writes again.
extension PostgresStore {
    /// Whether `error` is the server's refusal of a write in a read-only transaction
    /// (SQLSTATE 25006).
    static func isReadOnlyRefusal(_ error: any Error) -> Bool {
        (error as? PSQLError)?.serverInfo?[.sqlState] == "25006"
    }

    /// What a refused write and readiness say of `server` ("The database", or its primary).
    static func readOnlyDetail(_ server: String) -> String {
        "\(server) refuses writes: it is read-only (default_transaction_read_only is on for its database or "
            + "user, or it is a standby);"
    }

    /// Why the store is not ready while its primary refuses writes, nil when no write met it
    /// so since one last committed, or when the primary takes writes again: a look on a
    /// connection of the primary's pool, which is closed when its session is read-only, so
    /// that each look after it reads the setting anew on another.
    func readOnlyProblem() async -> String? {
        guard writesRefused.load(ordering: .relaxed) else { return nil }
        // Through ``transaction(on:_:writes:mark:_:)``: the look is watched for its
        // connection's close and not waited for past its time, where ``bounded(_:)`` alone
        // waits for its look to end (review 109 #2: a statement PostgresNIO never answers).
        let look = try? await Self.bounded { [logger, primaryGate] in
            try await self.transaction(on: primaryGate, nil, writes: false) { connection in
                let query: PostgresQuery = "SELECT current_setting('transaction_read_only') = 'on'"
                for try await readOnly in try await connection.query(query, logger: logger).decode(Bool.self) {
                    if readOnly { try? await connection.close() }
                    return readOnly
                }
                return true
            }
        }
        // Not answered: the connection's own look says what is wrong.
        guard let readOnly = look else { return nil }
        guard readOnly else {
            writesRefused.store(false, ordering: .relaxed)
            return nil
        }
        return Self.readOnlyDetail(primaryGate.named)
            + " the service's writes (the API's, and its record of other programs' writes, without which query "
            + "lists and feeds fall behind them) fail until it takes them again."
    }
}
