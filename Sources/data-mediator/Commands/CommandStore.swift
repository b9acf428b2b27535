import DataMediatorPostgres
import DataMediatorSQL
import Foundation
import Logging

/// The PostgreSQL store a command other than `serve` works on (`import`, `check --store`):
/// the database of `DATA_MEDIATOR_DATABASE_URL`, with a small pool of its own.
enum CommandStore {
    /// The store of `DATA_MEDIATOR_DATABASE_URL` in `environment`, opening at most
    /// `connections`, logging as `data-mediator.<command>`.
    ///
    /// - Throws: `StoreError` when the variable is not set; what the URL's checks throw.
    static func postgres(
        for command: String,
        connections: Int,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> PostgresStore {
        guard let url = try ServeConfiguration.databaseURL("DATA_MEDIATOR_DATABASE_URL", in: environment) else {
            throw StoreError(list: nil, "'store: postgres' needs DATA_MEDIATOR_DATABASE_URL")
        }
        return try PostgresStore(
            url: url,
            maximumConnections: connections,
            logger: Logger(label: "data-mediator.\(command)")
        )
    }
}
