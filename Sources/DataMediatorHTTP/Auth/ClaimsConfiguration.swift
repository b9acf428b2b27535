import Foundation
import JWTKit

/// The keys and rules that caller tokens (JWTs) of scoped lists are verified with: an HS256
/// shared secret, RS256 and ES256 public keys from a JWKS file, or both, and optionally the
/// issuer and audience a token must name.
///
/// Creating one reads and checks the key set file, so a bad setting stops the server at
/// start rather than refusing every caller later.
public struct ClaimsConfiguration: Sendable {
    /// The fewest bytes an HS256 secret may have: as many as the SHA-256 output, below which
    /// the secret is easier to guess than the signature.
    public static let minimumSecretBytes = 32
    /// The fewest different bytes a shared secret holds.
    public static let minimumDistinctSecretBytes = 8
    /// The `exp`/`nbf` leeway when none is given: room for small clock differences between
    /// the token's issuer and this server.
    public static let defaultLeeway = Duration.seconds(5)

    /// The HS256 shared secret; kept internal so that no log or description of the
    /// configuration can show it.
    let secret: String?
    /// The public keys read from ``keySetFile``, each with its `alg` set to RS256 or ES256.
    private(set) var keySet: JWKS?
    /// The path of the JWKS file the public keys were read from.
    public let keySetFile: String?
    /// The bytes ``keySet`` was read from, to tell whether the file changed since.
    private(set) var keySetData: Data?
    /// The keys of ``keySetFile`` left out, each with why: of a type or for a use this
    /// service does not verify with (RFC 7517 section 5 has a set's reader ignore them), so
    /// that an identity provider's whole set can be given; to be logged as warnings.
    public private(set) var skippedKeys: [String] = []
    /// The `kid`s of ``skippedKeys``: a token naming one is told the key is not one this
    /// service verifies with, not that it is missing.
    private(set) var skippedKeyIDs: Set<String> = []
    /// The `iss` a token must have; nil accepts any issuer or none.
    public let issuer: String?
    /// The value a token's `aud` must contain; nil accepts any audience or none.
    public let audience: String?
    /// How far past `exp`, or before `nbf`, a token is still accepted.
    public let leeway: Duration
    /// Whether a token must have an `exp` claim: RFC 7519 makes it optional, so a token
    /// without one is good forever once issued, unless this is set.
    public let requiresExpiration: Bool

    /// Whether tokens signed with the shared secret (HS256) are accepted.
    public var acceptsSharedSecret: Bool { secret != nil }

    /// Creates the configuration, reading the public keys from `keySetFile`.
    ///
    /// - Parameters:
    ///   - secret: The HS256 shared secret, at least ``minimumSecretBytes`` bytes of UTF-8; nil
    ///     refuses HS256 tokens.
    ///   - keySetFile: A JWKS file (`{"keys": [...]}`) of RS256 (RSA) and ES256 (EC P-256) public
    ///     keys, each with a `kid`; nil refuses RS256 and ES256 tokens.
    ///   - issuer: The `iss` a token must have, if any.
    ///   - audience: The value a token's `aud` must contain, if any.
    ///   - leeway: How far past `exp`, or before `nbf`, a token is still accepted.
    ///   - requiresExpiration: Whether a token without `exp` is refused.
    /// - Throws: `noKeys` when neither a secret nor a key set is given, `shortSecret`,
    ///   `unreadableKeySet` or `malformedKeySet`, each with a message that names the setting.
    public init(
        secret: String?,
        keySetFile: String?,
        issuer: String? = nil,
        audience: String? = nil,
        leeway: Duration = defaultLeeway,
        requiresExpiration: Bool = false
    ) throws(ClaimsConfigurationError) {
        guard secret != nil || keySetFile != nil else {
            throw ClaimsConfigurationError(
                .noKeys,
                "Tokens can be verified only with DATA_MEDIATOR_JWT_SECRET or DATA_MEDIATOR_JWKS_FILE set."
            )
        }
        if let secret, secret.utf8.count < Self.minimumSecretBytes {
            throw ClaimsConfigurationError(
                .shortSecret,
                "DATA_MEDIATOR_JWT_SECRET must be at least \(Self.minimumSecretBytes) bytes long; "
                    + "it is \(secret.utf8.count). Use a random secret, e.g. `openssl rand -base64 48`."
            )
        }
        // A secret long enough of few characters is a placeholder (`xxxx...`, spaces), not a
        // random one: `openssl rand -hex 32` gives 16 different ones, base64 far more.
        if let secret, Set(secret.utf8).count < Self.minimumDistinctSecretBytes {
            throw ClaimsConfigurationError(
                .shortSecret,
                "DATA_MEDIATOR_JWT_SECRET holds only \(Set(secret.utf8).count) different characters, a placeholder "
                    + "rather than a secret. Use a random secret, e.g. `openssl rand -base64 48`."
            )
        }
        try Self.checkClaimValues(issuer: issuer, audience: audience)
        self.secret = secret
        self.keySetFile = keySetFile
        let keySetData = try keySetFile.map { path throws(ClaimsConfigurationError) in try Self.keySetData(at: path) }
        self.keySetData = keySetData
        if let keySetFile, let keySetData {
            (self.keySet, self.skippedKeys, self.skippedKeyIDs) = try Self.keySet(from: keySetData, at: keySetFile)
        } else {
            self.keySet = nil
        }
        self.issuer = issuer
        self.audience = audience
        self.leeway = leeway
        self.requiresExpiration = requiresExpiration
    }

    /// Reads the configuration from environment variables: `DATA_MEDIATOR_JWT_SECRET`,
    /// `DATA_MEDIATOR_JWKS_FILE`, `DATA_MEDIATOR_JWT_ISSUER`, `DATA_MEDIATOR_JWT_AUDIENCE` and
    /// `DATA_MEDIATOR_JWT_REQUIRE_EXP` (`true` or `false`); empty values count as unset.
    ///
    /// - Returns: nil when neither a secret nor a key set file is set: no token can be verified.
    /// - Throws: what ``init(secret:keySetFile:issuer:audience:leeway:requiresExpiration:)``
    ///   throws; `badValue` for a `DATA_MEDIATOR_JWT_REQUIRE_EXP` that is neither.
    public static func load(from environment: [String: String]) throws(ClaimsConfigurationError) -> Self? {
        func text(_ name: String) -> String? {
            environment[name].flatMap { $0.isEmpty ? nil : $0 }
        }
        let secret = text("DATA_MEDIATOR_JWT_SECRET")
        let keySetFile = text("DATA_MEDIATOR_JWKS_FILE")
        let requiresExpiration: Bool
        switch text("DATA_MEDIATOR_JWT_REQUIRE_EXP")?.lowercased() {
        case nil, "false": requiresExpiration = false
        case "true": requiresExpiration = true
        case let other?:
            throw ClaimsConfigurationError(
                .badValue,
                "DATA_MEDIATOR_JWT_REQUIRE_EXP must be 'true' or 'false'; it is '\(other)'."
            )
        }
        // Checked with no key too: a value no token's claim matches is wrong either way.
        try checkClaimValues(issuer: text("DATA_MEDIATOR_JWT_ISSUER"), audience: text("DATA_MEDIATOR_JWT_AUDIENCE"))
        guard secret != nil || keySetFile != nil else { return nil }
        return try Self(
            secret: secret,
            keySetFile: keySetFile,
            issuer: text("DATA_MEDIATOR_JWT_ISSUER"),
            audience: text("DATA_MEDIATOR_JWT_AUDIENCE"),
            requiresExpiration: requiresExpiration
        )
    }

    /// Refuses an issuer or audience with spaces around it, or of spaces only, which no
    /// token's claim matches.
    static func checkClaimValues(issuer: String?, audience: String?) throws(ClaimsConfigurationError) {
        for (name, value) in [("DATA_MEDIATOR_JWT_ISSUER", issuer), ("DATA_MEDIATOR_JWT_AUDIENCE", audience)] {
            guard let value, value.trimmingCharacters(in: .whitespacesAndNewlines) != value || value.isEmpty else {
                continue
            }
            throw ClaimsConfigurationError(
                .badValue,
                "\(name) is '\(value)', with spaces around it (or nothing else), which no token's claim matches; "
                    + "give it as the tokens have it"
            )
        }
    }

    /// This configuration with the public keys of `data`, the key set file's bytes as read
    /// again (``ReloadingClaimsVerifier``).
    ///
    /// - Throws: `malformedKeySet` with what is wrong with them, as at start.
    func replacingKeySet(with data: Data) throws(ClaimsConfigurationError) -> Self {
        var changed = self
        changed.keySetData = data
        (changed.keySet, changed.skippedKeys, changed.skippedKeyIDs) = try Self.keySet(
            from: data,
            at: keySetFile ?? ""
        )
        return changed
    }

    /// The bytes of the key set file at `path`.
    ///
    /// - Throws: `unreadableKeySet` when it is missing, a folder, not a regular file or
    ///   cannot be read.
    static func keySetData(at path: String) throws(ClaimsConfigurationError) -> Data {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw ClaimsConfigurationError(
                .unreadableKeySet,
                "DATA_MEDIATOR_JWKS_FILE '\(path)' "
                    + (isDirectory.boolValue
                        ? "is a folder; name the key set's JSON file" : "does not exist; check the path")
            )
        }
        // Foundation calls a device (`/dev/null`) a permission problem.
        var status = stat()
        if stat(path, &status) == 0, status.st_mode & S_IFMT != S_IFREG {
            throw ClaimsConfigurationError(
                .unreadableKeySet,
                "DATA_MEDIATOR_JWKS_FILE '\(path)' is not a regular file (a device, pipe or socket); "
                    + "name the key set's JSON file"
            )
        }
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ClaimsConfigurationError(
                .unreadableKeySet,
                "DATA_MEDIATOR_JWKS_FILE '\(path)' cannot be read: \(error.localizedDescription)"
            )
        }
    }

    /// The decoder's complaint without its internal coding path noise.
    static func describe(_ error: any Error) -> String {
        switch error as? DecodingError {
        case .dataCorrupted(let context)?: return context.debugDescription
        case .keyNotFound(let key, _)?: return "a key has no '\(key.stringValue)'."
        case .typeMismatch(_, let context)?, .valueNotFound(_, let context)?:
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return "'\(path)': \(context.debugDescription)"
        default: return "the file is not valid JSON."
        }
    }
}
