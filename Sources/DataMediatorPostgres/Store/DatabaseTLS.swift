import DataMediatorSQL
import Foundation
import NIOSSL
import PostgresNIO

/// How the store's connections to a PostgreSQL server use TLS, read from a connection URL's
/// parameters as libpq reads them, so a URL that works with `psql` works here.
///
/// `sslmode` is `disable` (no TLS), `allow` or `prefer` (TLS when the server offers it,
/// the certificate unchecked; `prefer` is the default, as libpq's), `require` (TLS or no
/// connection, the certificate unchecked unless `sslrootcert` is given, as libpq does),
/// `verify-ca` (the certificate signed by a trusted authority) or `verify-full` (and issued
/// for the host the URL names). The trusted authorities are those in the PEM file
/// `sslrootcert`, or the system's when it is `system` or not given. `sslcert` and `sslkey`
/// (PEM files, both or neither) are a client certificate for servers that ask for one.
/// Any other parameter, a parameter given twice, and a combination that would check less
/// than it seems to ask for (a root certificate with a mode that checks nothing) are
/// refused rather than ignored. Files are read once, here, so a wrong path fails at start.
///
/// Two things differ from libpq: `allow` tries TLS first (PostgresNIO has no plain-first
/// mode; both end in a connection to a server with or without TLS), and `prefer` does not
/// fall back to a plain connection when the TLS handshake itself fails.
struct DatabaseTLS: Sendable {
    /// The parameters a URL may carry.
    static let parameters = ["sslmode", "sslrootcert", "sslcert", "sslkey"]

    /// Whether a connection may or must use TLS.
    enum Use: Sendable {
        case never, whenOffered, always
    }

    /// Whether a connection may or must use TLS.
    let use: Use
    /// The TLS settings of a connection that uses it.
    let configuration: TLSConfiguration
    /// The context made of them (which checks that the key is the certificate's), for a
    /// connection of its own (``connection()``); the pools make theirs.
    private let context: NIOSSLContext

    /// Reads `items`, the query of a connection URL.
    ///
    /// - Throws: `StoreError` naming the parameter and what to do.
    init(_ items: [URLQueryItem]) throws {
        var values: [String: String] = [:]
        // An empty part (a trailing `&`) is no parameter, as libpq reads it.
        for item in items where !(item.name.isEmpty && (item.value ?? "").isEmpty) {
            guard Self.parameters.contains(item.name) else {
                throw Self.refusal(
                    "the database URL's parameter '\(item.name)' is not one the store reads "
                        + "(\(Self.parameters.joined(separator: ", "))); remove it"
                )
            }
            guard values[item.name] == nil else {
                throw Self.refusal("the database URL gives '\(item.name)' twice; give it once")
            }
            guard let value = item.value, !value.isEmpty else {
                throw Self.refusal("the database URL's parameter '\(item.name)' has no value")
            }
            guard !value.contains("\0") else {
                throw Self.refusal("the database URL's parameter '\(item.name)' holds a NUL (%00)")
            }
            values[item.name] = value
        }
        let root = values["sslrootcert"]
        let mode = values["sslmode"] ?? (root == "system" ? "verify-full" : "prefer")
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .none
        switch mode {
        case "disable": use = .never
        case "allow", "prefer": use = .whenOffered
        case "require":
            use = .always
            if root != nil { configuration.certificateVerification = .noHostnameVerification }
        case "verify-ca":
            use = .always
            configuration.certificateVerification = .noHostnameVerification
        case "verify-full":
            use = .always
            configuration.certificateVerification = .fullVerification
        default:
            throw Self.refusal(
                "the database URL's sslmode is '\(mode)'; it is disable, allow, prefer, require, verify-ca or verify-full"
            )
        }
        if let root {
            guard configuration.certificateVerification != .none else {
                throw Self.refusal(
                    "the database URL names sslrootcert, but sslmode=\(mode) does not check the server's certificate; "
                        + "use sslmode=verify-full (or verify-ca)"
                )
            }
            if root == "system" {
                guard mode == "verify-full" else {
                    throw Self.refusal("sslrootcert=system checks the host name too; use it with sslmode=verify-full")
                }
            } else {
                configuration.trustRoots = .certificates(try Self.certificates(root, "sslrootcert"))
            }
        }
        switch (values["sslcert"], values["sslkey"]) {
        case (nil, nil): break
        case (let certificate?, let key?):
            guard use != .never else {
                throw Self.refusal("the database URL names a client certificate, but sslmode=disable uses no TLS")
            }
            configuration.certificateChain = try Self.certificates(certificate, "sslcert").map { .certificate($0) }
            try Self.checkRegular(key, "sslkey")
            try Self.checkPrivate(key)
            do {
                configuration.privateKey = .privateKey(try NIOSSLPrivateKey(file: key, format: .pem))
            } catch {
                throw Self.refusal(Self.unreadable(key, "sslkey", "a PEM private key without a passphrase"))
            }
        default:
            throw Self.refusal("the database URL names one of sslcert and sslkey; a client certificate needs both")
        }
        // The key must be the certificate's, which only a context made of them tells.
        do {
            context = try NIOSSLContext(configuration: configuration)
        } catch {
            throw Self.refusal(
                values["sslkey"] == nil
                    ? "the database URL's TLS settings are not usable: \(error)"
                    : "the database URL's sslkey is not the key of sslcert's certificate"
            )
        }
        self.configuration = configuration
    }

    /// The setting of a pool's connections.
    var client: PostgresClient.Configuration.TLS {
        switch use {
        case .never: .disable
        case .whenOffered: .prefer(configuration)
        case .always: .require(configuration)
        }
    }

    /// The setting of a single connection (a pool makes its context itself).
    func connection() -> PostgresConnection.Configuration.TLS {
        switch use {
        case .never: .disable
        case .whenOffered: .prefer(context)
        case .always: .require(context)
        }
    }

    /// The certificates of the PEM file at `path`, named by `parameter`.
    private static func certificates(_ path: String, _ parameter: String) throws -> [NIOSSLCertificate] {
        try checkRegular(path, parameter)
        let certificates = try? NIOSSLCertificate.fromPEMFile(path)
        guard let certificates, !certificates.isEmpty else {
            throw refusal(unreadable(path, parameter, "a PEM file of certificates"))
        }
        return certificates
    }

    /// Refuses a path that is not a file (after its links): a FIFO or a device would keep
    /// the start waiting for its writer (psql waits too), a folder reads as no certificate.
    private static func checkRegular(_ path: String, _ parameter: String) throws {
        var status = stat()
        guard stat(path, &status) == 0 else { return }  // Said by the read that follows.
        guard status.st_mode & S_IFMT != S_IFREG else { return }
        throw refusal("the database URL's \(parameter) '\(path)' is not a file (a folder, a pipe or a device)")
    }

    /// Refuses a key file others may read, as libpq does: owned by the service's user, no
    /// access for group or others (0600); owned by root, at most read for the group (0640).
    private static func checkPrivate(_ path: String) throws {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue,
            let owner = (attributes[.ownerAccountID] as? NSNumber)?.intValue
        else { return }
        // libpq's rule: the service's own key, nothing for group or others; root's, at
        // most read for the group; anyone else's, not checked.
        let forbidden = owner == Int(geteuid()) ? 0o077 : owner == 0 ? 0o037 : 0
        guard mode & forbidden != 0 else { return }
        throw refusal(
            "the database URL's sslkey '\(path)' may be read by others (mode \(String(mode & 0o777, radix: 8))); "
                + "make it 0600 (0640 when root owns it), as libpq requires"
        )
    }

    /// Why the file at `path` cannot be used as `what`.
    private static func unreadable(_ path: String, _ parameter: String, _ what: String) -> String {
        let problem =
            FileManager.default.isReadableFile(atPath: path)
            ? "is not \(what)" : "cannot be read (no such file, or no permission)"
        return "the database URL's \(parameter) '\(path)' \(problem)"
    }

    private static func refusal(_ message: String) -> StoreError {
        StoreError(list: nil, message)
    }
}
