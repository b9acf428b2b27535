import DataMediator
import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO

extension PostgresStore {
    /// Why a connection to the primary, or else to the read replica, cannot be opened now,
    /// as one line that names the server and the database, or nil when both can.
    ///
    /// The pool does not pass on why it could not connect (it retries until a request
    /// times out), so this opens one connection of its own to each, bounded by ``timeout``.
    func connectionFailure() async -> String? {
        await connectionFailure(lastingOnly: false)
    }

    /// ``connectionFailure()`` when retrying cannot mend it: the server refused the user,
    /// the password or the database, or TLS failed (a certificate that does not check
    /// out, a server without TLS). The store's start asks this first, so such a failure is
    /// said at once rather than after the pool has retried for ``timeout``; a server that
    /// cannot be reached yet, or is starting up, is left to the pool's retries.
    func lastingConnectionFailure() async -> String? {
        await connectionFailure(lastingOnly: true)
    }

    private func connectionFailure(lastingOnly: Bool) async -> String? {
        for (configuration, tls, role) in [(primaryConfiguration, primaryTLS, "PostgreSQL")]
            + (readerConfiguration.flatMap { reader in readerTLS.map { [(reader, $0, "the read replica")] } } ?? [])
        {
            guard let failure = await connectionFailure(configuration, tls, role) else { continue }
            if !lastingOnly || failure.lasting { return failure.reason }
            return nil
        }
        return nil
    }

    /// One connection to the server of `client`, outside the pool, bounded by ``timeout``.
    func standaloneConnection(
        _ client: PostgresClient.Configuration,
        _ clientTLS: DatabaseTLS
    ) async throws -> PostgresConnection {
        var configuration = PostgresConnection.Configuration(
            host: client.host ?? "localhost",
            port: client.port ?? 5432,
            username: client.username,
            password: client.password,
            database: client.database,
            tls: clientTLS.connection()
        )
        configuration.options.connectTimeout = .nanoseconds(max(1, timeout.nanoseconds))
        return try await PostgresConnection.connect(
            on: eventLoops.any(),
            configuration: configuration,
            id: 0,
            logger: logger
        )
    }

    /// Why a connection to the server of `client`, called `role`, cannot be opened now, and
    /// whether retrying cannot mend it.
    private func connectionFailure(
        _ client: PostgresClient.Configuration,
        _ clientTLS: DatabaseTLS,
        _ role: String
    ) async -> (reason: String, lasting: Bool)? {
        let host = client.host ?? "localhost"
        let port = client.port ?? 5432
        let target =
            "\(role) at \(host):\(port) (user '\(client.username)', database '\(client.database ?? client.username)')"
        do {
            let connection = try await standaloneConnection(client, clientTLS)
            try? await connection.close()
            return nil
        } catch {
            return ("cannot connect to \(target): \(Self.connectionReason(error))", Self.isLasting(error))
        }
    }

    /// Whether a failed connection fails again however often it is retried: the server
    /// refused the role, its password or the database (SQLSTATE class 28, 3D000), or TLS
    /// failed. A server starting up, shutting down or full (57P03, 53300) may take the
    /// next one, as may a socket that was refused or timed out.
    static func isLasting(_ error: any Error) -> Bool {
        guard let error = error as? PSQLError else { return false }
        if let state = error.serverInfo?[.sqlState] { return state.hasPrefix("28") || state == "3D000" }
        return error.code == .sslUnsupported || error.underlying is NIOSSLExtraError
            || error.underlying is NIOSSLError
    }

    /// A failed connection's reason: the server's message (a wrong password, a missing
    /// database), else TLS's (a server without it, a certificate that does not check out),
    /// else the socket's (refused, unreachable, timed out).
    static func connectionReason(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return "\(error)" }
        if let message = error.serverInfo?[.message] { return message }
        if error.code == .sslUnsupported {
            return "the server does not offer TLS, which the URL's sslmode requires"
        }
        if error.underlying is NIOSSLExtraError {
            return "the server's certificate is not issued for this host name, which sslmode=verify-full checks; "
                + "connect by a name the certificate gives, or use sslmode=verify-ca"
        }
        if let failure = error.underlying as? NIOSSLError {
            // BoringSSL's reason, without the rest of its text (codes and a source path).
            let text = "\(failure)"
            let reason =
                text.range(of: "OPENSSL_internal:").map { text[$0.upperBound...].prefix { $0 != " " } }.map(String.init)
                ?? text
            if reason == "CERTIFICATE_VERIFY_FAILED" {
                return "the server's certificate does not check out against the authorities of sslrootcert "
                    + "(the system's when it is not given): signed by another, expired or not yet valid"
            }
            if reason.contains("ALERT") && (reason.contains("CERTIFICATE") || reason.contains("UNKNOWN_CA")) {
                return "the server refused the client certificate (\(reason)); check sslcert and sslkey"
            }
            if reason == "WRONG_VERSION_NUMBER" {
                return "the server does not answer in TLS (\(reason)); is it PostgreSQL?"
            }
            return "the TLS handshake failed (\(reason))"
        }
        guard var underlying = error.underlying else { return "\(error.code)" }
        if let failure = underlying as? NIOConnectionError {
            if failure.connectionErrors.isEmpty, failure.dnsAError != nil || failure.dnsAAAAError != nil {
                return "no such host"
            }
            underlying = failure.connectionErrors.last?.error ?? underlying
        }
        if let socket = underlying as? IOError { return String(cString: strerror(socket.errnoCode)).lowercased() }
        return "\(underlying)"
    }
}
