import DataMediator
import DataMediatorSQL
import Foundation
import Logging
import PostgresNIO

extension PostgresStore {
    /// How long a connection above the pool's minimum may sit idle before it is closed
    /// (none is: the minimum is the maximum).
    static let idleTimeout: Duration = .seconds(10)

    /// The client configuration of a connection URL, with TLS as its parameters ask
    /// (``DatabaseTLS``: libpq's `sslmode`, `sslrootcert`, `sslcert` and `sslkey`). Every session
    /// starts with `timeout` as its `statement_timeout` and `lock_timeout`, so the server
    /// itself ends a statement that runs or waits longer (which a client-side timer cannot:
    /// it can only stop waiting), and a transaction left idle for four times as long is
    /// ended by the server too.
    /// Unless `keepConnectionsOpen` is false (for tests that run many stores against one
    /// server), the pool opens all its connections and keeps them open. `tls` is the URL's,
    /// when it was read already.
    static func configuration(
        _ url: String,
        tls known: DatabaseTLS? = nil,
        maximumConnections: Int,
        timeout: Duration = .seconds(5),
        keepConnectionsOpen: Bool = true
    ) throws -> PostgresClient.Configuration {
        let (parts, host) = try checkedURL(url)
        let tls = try known ?? DatabaseTLS(parts.queryItems ?? [])
        let database = parts.path.hasPrefix("/") ? String(parts.path.dropFirst()) : parts.path
        var configuration = PostgresClient.Configuration(
            host: host,
            port: parts.port ?? 5432,
            username: parts.user ?? "postgres",
            password: parts.password,
            database: database.isEmpty ? nil : database,
            tls: tls.client
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

    /// The parts of a connection URL and its host (an IPv6 address without its brackets),
    /// checked: `postgres://` or `postgresql://` (in any case), a host, a port from 1 to
    /// 65535 when one is given, and no `#` part. A `?`, `#` or `/` in the password must be
    /// percent-encoded, as in any URL: one that is not would make the rest of the password a
    /// parameter, a fragment or a path, so the refusal says so without repeating any of it.
    /// A raw `@` passes: the last `@` ends the user's part (Foundation's reading).
    ///
    /// - Throws: `StoreError` saying what is wrong, never quoting the URL.
    static func checkedURL(_ url: String) throws -> (parts: URLComponents, host: String) {
        let encoding = "a '?', '#', '/' or '@' in the password is written %3F, %23, %2F or %40"
        if let start = url.firstIndex(where: { $0 == "?" || $0 == "#" }), url[start...].contains("@") {
            throw StoreError(list: nil, "the database URL has a '?' or '#' before its '@': \(encoding)")
        }
        guard let parts = URLComponents(string: url),
            ["postgres", "postgresql"].contains(parts.scheme?.lowercased() ?? ""),
            let bracketed = parts.host, !bracketed.isEmpty
        else {
            throw StoreError(
                list: nil,
                "the database URL is not of the form postgres://user:password@host:port/database (\(encoding))"
            )
        }
        guard parts.fragment == nil else {
            throw StoreError(list: nil, "the database URL has a '#' part, which would be dropped: \(encoding)")
        }
        if let port = parts.port, !(1...65_535).contains(port) {
            throw StoreError(list: nil, "the database URL names port \(port); a port is from 1 to 65535")
        }
        let host =
            bracketed.hasPrefix("[") && bracketed.hasSuffix("]")
            ? String(bracketed.dropFirst().dropLast()) : bracketed
        return (parts, host)
    }

    /// How the connections of a URL use TLS (``DatabaseTLS``).
    ///
    /// - Throws: `StoreError` when its parameters are not ones the store reads.
    static func tls(ofURL url: String) throws -> DatabaseTLS {
        try DatabaseTLS(checkedURL(url).parts.queryItems ?? [])
    }

    /// Refuses a connection URL the store would not read as its writer meant
    /// (``checkedURL(_:)``), or whose parameters it would not honour or could not use:
    /// anything but libpq's `sslmode`, `sslrootcert`, `sslcert` and `sslkey`, a mode libpq
    /// does not know, a combination that checks less than it seems to, and a certificate or
    /// key file that cannot be used (``DatabaseTLS``).
    ///
    /// - Throws: `StoreError` saying what is wrong, never quoting the URL.
    public static func checkURL(_ url: String) throws {
        _ = try tls(ofURL: url)
    }
}
