import DataMediator
import DataMediatorSQL
import Foundation
import Logging
import PostgresNIO

extension PostgresStore {
    /// How long a connection above the pool's minimum may sit idle before it is closed
    /// (none is: the minimum is the maximum).
    static let idleTimeout: Duration = .seconds(10)

    /// The client configuration of a connection URL; TLS is off (connect over a private
    /// network or a local socket), so a URL that asks for it (`sslmode=require`,
    /// `verify-ca`, `verify-full`) is refused rather than connected in the clear, and so is
    /// any other parameter, which would be ignored (``checkParameters(_:)``). Every session
    /// starts with `timeout` as its `statement_timeout` and `lock_timeout`, so the server
    /// itself ends a statement that runs or waits longer (which a client-side timer cannot:
    /// it can only stop waiting), and a transaction left idle for four times as long is
    /// ended by the server too.
    /// Unless `keepConnectionsOpen` is false (for tests that run many stores against one
    /// server), the pool opens all its connections and keeps them open.
    static func configuration(
        _ url: String,
        maximumConnections: Int,
        timeout: Duration = .seconds(5),
        keepConnectionsOpen: Bool = true
    ) throws -> PostgresClient.Configuration {
        guard let parts = URLComponents(string: url), ["postgres", "postgresql"].contains(parts.scheme ?? ""),
            let host = parts.host, !host.isEmpty
        else {
            throw StoreError(
                list: nil,
                "the database URL is not of the form postgres://user:password@host:port/database"
            )
        }
        try checkParameters(parts.queryItems ?? [])
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
        let milliseconds = max(1, timeout.nanoseconds / 1_000_000)
        configuration.options.additionalStartupParameters = [
            ("statement_timeout", "\(milliseconds)"),
            ("lock_timeout", "\(milliseconds)"),
            ("idle_in_transaction_session_timeout", "\(milliseconds * 4)"),
            // A time written without a zone into a timestamptz column is read as UTC,
            // whichever zone the server is set to.
            ("TimeZone", "UTC"),
        ]
        // The pool arms a timer each time a connection above its minimum goes back to it
        // (to close it when idle), and a cancelled timer holds a task and its memory until
        // it would have fired: under a steady load of pages, a fifth of a page's CPU and
        // over 20 MiB (docs/performance.md). So the pool keeps all its connections open (it
        // opens them at start and reopens one that fails), arms no timer, and pings nothing;
        // TCP keep-alive (``DatabaseKeepAlive``) notices a connection whose server went away.
        configuration.options.minimumConnections = keepConnectionsOpen ? maximumConnections : 0
        configuration.options.keepAliveBehavior = nil
        configuration.options.connectionIdleTimeout = idleTimeout
        return configuration
    }

    /// The `sslmode` values that let a connection go without TLS, as libpq reads them.
    static let plainSSLModes: Set<String> = ["disable", "allow", "prefer"]

    /// Refuses a URL's parameters the store would not honour: `sslmode` other than
    /// ``plainSSLModes`` (the store speaks no TLS), and every other parameter.
    ///
    /// - Throws: `StoreError` naming the parameter.
    public static func checkParameters(_ items: [URLQueryItem]) throws {
        for item in items {
            guard item.name == "sslmode" else {
                throw StoreError(
                    list: nil,
                    "the database URL's parameter '\(item.name)' is not one the store reads (only sslmode is); "
                        + "remove it"
                )
            }
            guard let mode = item.value, plainSSLModes.contains(mode) else {
                throw StoreError(
                    list: nil,
                    "the database URL asks for sslmode=\(item.value ?? ""), but the store connects without TLS; "
                        + "connect over a private network or a local tunnel with sslmode=disable, or leave sslmode out"
                )
            }
        }
    }
}
