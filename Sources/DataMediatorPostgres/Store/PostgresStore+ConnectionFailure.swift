import DataMediator
import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO

extension PostgresStore {
    /// Why a connection to the primary cannot be opened now, as one line that names the
    /// server and the database, or nil when one can.
    ///
    /// The pool does not pass on why it could not connect (it retries until a request
    /// times out), so this opens one connection of its own, bounded by ``timeout``.
    func connectionFailure() async -> String? {
        let client = primaryConfiguration
        let host = client.host ?? "localhost"
        let port = client.port ?? 5432
        let target =
            "PostgreSQL at \(host):\(port) (user '\(client.username)', database '\(client.database ?? client.username)')"
        let tls: PostgresConnection.Configuration.TLS
        do {
            tls = try primaryTLS.connection()
        } catch {
            return "cannot connect to \(target): the TLS settings are not usable: \(error)"
        }
        var configuration = PostgresConnection.Configuration(
            host: host,
            port: port,
            username: client.username,
            password: client.password,
            database: client.database,
            tls: tls
        )
        configuration.options.connectTimeout = .nanoseconds(max(1, timeout.nanoseconds))
        do {
            let connection = try await PostgresConnection.connect(
                on: eventLoops.any(),
                configuration: configuration,
                id: 0,
                logger: logger
            )
            try? await connection.close()
            return nil
        } catch {
            return "cannot connect to \(target): \(Self.connectionReason(error))"
        }
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
            if "\(failure)".contains("CERTIFICATE_VERIFY_FAILED") {
                return "the server's certificate does not check out against the authorities of sslrootcert "
                    + "(the system's when it is not given): signed by another, expired or not yet valid"
            }
            return "the TLS handshake failed: \(failure)"
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
