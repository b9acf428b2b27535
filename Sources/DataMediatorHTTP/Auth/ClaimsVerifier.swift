import DataMediator
import Foundation
import HTTPTypes
import JWTKit

/// Verifies the JWT a caller of a scoped list sends in `Authorization: Bearer` and answers
/// its claims; every refusal is a `401` problem with a `WWW-Authenticate: Bearer` challenge
/// whose `detail` says what is wrong with the token.
///
/// Keys are kept apart by algorithm: a token is checked only against the keys of the
/// algorithm its header names, and only when that algorithm is configured. So `alg: none`
/// meets no key, and an HS256 token never meets a public key's bytes used as a secret.
public struct ClaimsVerifier: Sendable {
    /// One key collection per accepted `alg` value.
    private let keysByAlgorithm: [String: JWTKeyCollection]
    /// The `kid`s of the key set's keys, per algorithm (the shared secret has none).
    private let keyIDsByAlgorithm: [String: Set<String>]
    /// The `kid`s of the key set's keys left out (``ClaimsConfiguration/skippedKeys``).
    private let leftOutKeyIDs: Set<String>
    private let issuer: String?
    private let audience: String?
    private let leeway: TimeInterval
    private let requiresExpiration: Bool
    /// The tokens accepted so far, whose time window alone is checked again.
    let verifiedTokens = KeptTokens<TokenClaims>()
    /// The tokens refused so far for their form, key or signature (not their time window),
    /// refused again as they were.
    let refusedTokens = KeptTokens<Problem>()

    /// Prepares the keys of a configuration.
    ///
    /// - Throws: `malformedKeySet` when a public key of the key set cannot be used (say an RSA
    ///   key shorter than jwt-kit accepts, or an EC point not on its curve).
    public init(_ configuration: ClaimsConfiguration) async throws(ClaimsConfigurationError) {
        var keys: [String: JWTKeyCollection] = [:]
        var keyIDs: [String: Set<String>] = [:]
        if let secret = configuration.secret {
            keys["HS256"] = await JWTKeyCollection().add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
        }
        for key in configuration.keySet?.keys ?? [] {
            // The configuration sets every key's algorithm to RS256 or ES256.
            guard let algorithm = key.algorithm?.rawValue else { continue }
            let collection = keys[algorithm] ?? JWTKeyCollection()
            do {
                try await collection.add(jwk: key)
            } catch {
                let name = key.keyIdentifier?.string ?? "?"
                throw ClaimsConfigurationError(
                    .malformedKeySet,
                    "DATA_MEDIATOR_JWKS_FILE '\(configuration.keySetFile ?? "")': key '\(name)' "
                        + "cannot be used as an \(algorithm) key (\(error))."
                )
            }
            keys[algorithm] = collection
            if let kid = key.keyIdentifier?.string { keyIDs[algorithm, default: []].insert(kid) }
        }
        keysByAlgorithm = keys
        keyIDsByAlgorithm = keyIDs
        leftOutKeyIDs = configuration.skippedKeyIDs
        issuer = configuration.issuer
        audience = configuration.audience
        requiresExpiration = configuration.requiresExpiration
        leeway = configuration.leeway.inSeconds
    }

    /// The algorithms whose tokens are accepted, sorted.
    public var algorithms: [String] { keysByAlgorithm.keys.sorted() }

    /// Verifies the token of an `Authorization` header value and answers its claims.
    ///
    /// The token must be signed with a configured algorithm and key, be within its `exp`
    /// and `nbf` (give or take the leeway) when it has them, and name the configured issuer
    /// and audience when those are configured.
    ///
    /// - Parameter value: The `Authorization` header's value, nil when the request has none.
    /// - Returns: Every claim of the token, numbers as numbers.
    /// - Throws: an `unauthorized` (401) ``Problem``: without an `error` in its challenge when
    ///   no Bearer credentials were sent (RFC 6750), with `error="invalid_token"` otherwise.
    public func claims(fromAuthorization value: String?) async throws(Problem) -> [String: JSONValue] {
        try await claims(fromAuthorization: value, at: Date())
    }

    /// ``claims(fromAuthorization:)`` at the time `now`.
    func claims(fromAuthorization value: String?, at now: Date) async throws(Problem) -> [String: JSONValue] {
        guard let value else {
            throw Self.refusal(
                "The request has no 'Authorization' header; send 'Authorization: Bearer <JWT>'.",
                invalidToken: false
            )
        }
        guard value.prefix(7).lowercased() == "bearer " else {
            throw Self.refusal(
                "The 'Authorization' header does not hold a Bearer token; send 'Authorization: Bearer <JWT>'.",
                invalidToken: false
            )
        }
        let token = value.dropFirst(7).trimmingCharacters(in: .whitespaces)
        if let verified = verifiedTokens.value(of: token) {
            try check(verified, at: now)
            return verified.values
        }
        if let refusal = refusedTokens.value(of: token) { throw refusal }
        let verified: TokenClaims
        do {
            verified = try await verify(token)
        } catch {
            refusedTokens.keep(error, of: token)
            throw error
        }
        try check(verified, at: now)
        verifiedTokens.keep(verified, of: token)
        return verified.values
    }

    /// The claims of `token` when its form, its key and its signature are right (its time
    /// window is the caller's to check).
    private func verify(_ token: String) async throws(Problem) -> TokenClaims {
        let malformed = Self.refusal(
            "The bearer token is neither a configured write token nor a well-formed JWT "
                + "(header.claims.signature, base64url); a scoped list is read with its caller's JWT "
                + "(a read token does not read it: its items are each caller's own)."
        )
        // RFC 7515 §2: base64url here is written without padding; a padded part is
        // another spelling of the same token.
        guard !token.contains("=") else { throw malformed }
        // RFC 7515 2 and RFC 4648 3.5: each part is the one spelling of its bytes; one whose
        // last character sets bits the bytes do not have is another spelling of the same
        // token (a caller without `sub` would be as many clients as it has spellings).
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy(Self.isCanonical) else { throw malformed }
        let header: JWTHeader
        do {
            header = try DefaultJWTParser().parse(Array(token.utf8), as: TokenClaims.self).header
        } catch {
            throw Self.misTypedClaim(in: token).map { Self.refusal($0) } ?? malformed
        }
        // RFC 7519 §4: a claim (or header member) named twice is refused, not read as the
        // parser happens to (the first, here; most others keep the last).
        if let repeated = Self.repeatedMember(in: token) {
            throw Self.refusal("The token names '\(repeated)' twice.")
        }
        // The parser reads `"exp": null` as no expiry; RFC 7519 §4.1.4 asks for a number.
        if let wrong = Self.misTypedClaim(in: token) { throw Self.refusal(wrong) }
        // RFC 7519 §7.2: the header and claims are JSON; the parser also takes a trailing
        // comma or a leading zero, which other verifiers refuse.
        for part in token.split(separator: ".", omittingEmptySubsequences: false).prefix(2) {
            if let json = Self.decoded(part), JSONSyntax.problem(in: json) != nil { throw malformed }
        }
        // RFC 7515 §4.1.11: a token that lists critical extensions this server does not
        // understand (it understands none) is invalid.
        guard header[dynamicMember: "crit"] == nil else {
            throw Self.refusal(
                "The token's header lists critical extensions ('crit'), which this server does not understand."
            )
        }
        guard let algorithm = header.alg else {
            throw Self.refusal("The token's header names no algorithm ('alg').")
        }
        guard let keys = keysByAlgorithm[algorithm] else {
            throw Self.refusal(unacceptedAlgorithm: algorithm, accepted: algorithms)
        }
        // A `kid` of another algorithm's key (an HS256 token naming a key of the key set) names
        // a key that cannot have signed it: refused, not verified by the shared secret.
        if let kid = header.kid, let other = keyIDsByAlgorithm.first(where: { $0.value.contains(kid) })?.key,
            other != algorithm
        {
            throw Self.refusal(
                "The token names an \(other) key of this server but says it is signed with \(algorithm)."
            )
        }
        // A `kid` names the key that signed the token (RFC 7515 4.1.4): one this server does
        // not hold (say a key taken out of the key set) is refused as such, rather than the
        // token being tried against whichever key is first.
        if let kid = header.kid, let held = keyIDsByAlgorithm[algorithm], !held.contains(kid) {
            let plain =
                kid.count <= 64 && kid.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }
            let named = plain ? "'\(kid)'" : "its 'kid'"
            throw Self.refusal(
                leftOutKeyIDs.contains(kid)
                    ? "The token names a key (\(named)) that the key set holds but this server does not verify "
                        + "with (of another type, use or algorithm)."
                    : "The token names a key (\(named)) this server does not hold for \(algorithm); "
                        + "it may have been taken out of the key set."
            )
        }
        let verified: TokenClaims
        do {
            // A token that names its key is verified by that key alone (jwt-kit would try
            // every other key after it); one that names none, by each key of its algorithm.
            verified = try await keys.verify(token, as: TokenClaims.self, iteratingKeys: header.kid == nil)
        } catch let error as JWTError where error.errorType == .malformedToken {
            throw malformed
        } catch {
            throw Self.refusal("The token's signature does not match any \(algorithm) key of this server.")
        }
        return verified
    }

    /// A member named twice in the token's header or claims, if any.
    static func repeatedMember(in token: String) -> String? {
        for part in token.split(separator: ".", omittingEmptySubsequences: false).prefix(2) {
            guard let json = decoded(part) else { continue }
            if let name = JSONValue.duplicateKey(in: json) { return name }
        }
        return nil
    }

    /// What is wrong with a registered claim this server reads, when the token's claims are
    /// JSON but one is not of its type (RFC 7519 §4.1): `exp`, `nbf` and `iat` are
    /// NumericDates (numbers; `null` is none of them), `iss` text, `aud` text or an array
    /// of texts. Nil for anything else.
    static func misTypedClaim(in token: String) -> String? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let json = decoded(parts[1]), case .object(let claims)? = try? JSONValue.parse(json)
        else { return nil }
        for name in ["exp", "nbf", "iat"] {
            switch claims[name] {
            case nil, .integer?, .number?: continue
            default: return "The token's '\(name)' is not a NumericDate (a number of seconds since 1970)."
            }
        }
        switch claims["iss"] {
        case nil, .string?: break
        default: return "The token's 'iss' is not text."
        }
        switch claims["aud"] {
        case nil, .string?: return nil
        case .array(let audiences)? where audiences.allSatisfy({ if case .string = $0 { true } else { false } }):
            return nil
        default: return "The token's 'aud' is neither text nor an array of texts."
        }
    }

    /// The bytes of one base64url part of a token (padding optional), nil when it is not
    /// base64url.
    /// Whether `part` is base64url without padding as RFC 4648 writes its bytes: those
    /// letters only, and no bits set past the last byte.
    static func isCanonical(_ part: Substring) -> Bool {
        guard part.utf8.allSatisfy({ $0.isBase64URL }), let bytes = decoded(part) else { return false }
        let written = Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        return written == part
    }

    private static func decoded(_ part: Substring) -> [UInt8]? {
        var base64 = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64).map(Array.init)
    }

    /// Checks the time window, issuer and audience of claims whose signature is verified.
    private func check(_ claims: TokenClaims, at now: Date) throws(Problem) {
        if requiresExpiration, claims.expiration == nil {
            throw Self.refusal("The token has no 'exp' claim; this server accepts only tokens that expire.")
        }
        if let expiration = claims.expiration {
            do {
                try expiration.verifyNotExpired(currentDate: now.addingTimeInterval(-leeway))
            } catch {
                throw Self.refusal("The token expired at \(expiration.value.formatted(.iso8601)).")
            }
        }
        if let notBefore = claims.notBefore {
            do {
                try notBefore.verifyNotBefore(currentDate: now.addingTimeInterval(leeway))
            } catch {
                throw Self.refusal("The token is not valid before \(notBefore.value.formatted(.iso8601)).")
            }
        }
        if let issuer {
            guard let given = claims.issuer else {
                throw Self.refusal("The token has no 'iss' claim; this server accepts tokens of one issuer only.")
            }
            // Byte for byte (RFC 7519 2, StringOrURI: no canonicalization); Swift's `==`
            // takes canonically equivalent text (`é` and `e` + U+0301) as equal.
            guard given.value.utf8.elementsEqual(issuer.utf8) else {
                throw Self.refusal("The token's 'iss' is not the issuer this server accepts.")
            }
        }
        if let audience {
            guard let given = claims.audience else {
                throw Self.refusal("The token has no 'aud' claim; this server accepts tokens meant for it only.")
            }
            // Byte for byte, as `iss` (jwt-kit's `verifyIntendedAudience` compares Swift
            // strings, which canonicalize).
            guard given.value.contains(where: { $0.utf8.elementsEqual(audience.utf8) }) else {
                throw Self.refusal("The token's 'aud' does not name this server's audience.")
            }
        }
    }

    /// The refusal of a token whose `alg` is not configured; the name is echoed only when it
    /// is short and plain, so the answer never carries a caller's arbitrary text.
    private static func refusal(unacceptedAlgorithm algorithm: String, accepted: [String]) -> Problem {
        if algorithm.lowercased() == "none" {
            return refusal("The token is unsigned (alg 'none'); only signed tokens are accepted.")
        }
        let plain = algorithm.count <= 16 && algorithm.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
        let named = plain ? "'\(algorithm)'" : "its header names"
        return refusal(
            "The token's algorithm \(named) is not accepted here; this server accepts "
                + accepted.joined(separator: ", ") + "."
        )
    }

    /// A 401 with a `WWW-Authenticate: Bearer` challenge that carries `detail` as its
    /// `error_description` when the credentials were a token that is not valid.
    private static func refusal(_ detail: String, invalidToken: Bool = true) -> Problem {
        Problem(
            .unauthorized,
            detail: detail,
            headers: invalidToken ? BearerChallenge.invalidToken(detail) : BearerChallenge.credentialsMissing
        )
    }
}

extension UInt8 {
    /// Whether the byte is a letter of base64url (RFC 4648 5).
    fileprivate var isBase64URL: Bool {
        (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self) || (0x30...0x39).contains(self) || self == 0x2D
            || self == 0x5F
    }
}
