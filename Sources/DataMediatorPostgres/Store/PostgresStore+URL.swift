import DataMediator
import DataMediatorSQL
import Foundation
import Logging
import PostgresNIO

extension PostgresStore {
    /// How long a connection may sit idle in the pool before it is closed.
    static let idleTimeout: Duration = .seconds(10)

    /// The client configuration of a connection URL; TLS is off (connect over a private
    /// network or a local socket).
    static func configuration(_ url: String, maximumConnections: Int) throws -> PostgresClient.Configuration {
        guard let parts = URLComponents(string: url), ["postgres", "postgresql"].contains(parts.scheme ?? ""),
            let host = parts.host, !host.isEmpty
        else {
            throw StoreError(
                list: nil,
                "the database URL is not of the form postgres://user:password@host:port/database"
            )
        }
        let database = parts.path.hasPrefix("/") ? String(parts.path.dropFirst()) : parts.path
        var configuration = PostgresClient.Configuration(
            host: host,
            port: parts.port ?? 5432,
            username: parts.user ?? "postgres",
            password: parts.password,
            database: database.isEmpty ? nil : database,
            tls: .disable
        )
        configuration.options.maximumConnections = maximumConnections
        // The pool arms a timer each time a connection goes back to it (a keep-alive ping,
        // an idle close), and a cancelled timer holds its memory until it would have fired,
        // which under a steady load of pages adds up (docs/DESIGN-NOTES.md). No keep-alive,
        // and idle connections closed soon (so none sits idle long enough for a firewall
        // to drop it unseen), keep the memory flat.
        configuration.options.keepAliveBehavior = nil
        configuration.options.connectionIdleTimeout = idleTimeout
        return configuration
    }
}
