import Crypto
import DataMediator
import DataMediatorHTTP
import Foundation
import HTTPTypes
import JWTKit
import Testing

/// Caller tokens are verified against the configured keys and rules, and every refusal is a
/// 401 that says why.
@Suite struct ClaimsVerifierTests {
    static let challenge = #"Bearer realm="data-mediator""#

    let keys: ClaimsTestKeys

    init() throws { keys = try ClaimsTestKeys.shared.get() }

    func verifier(
        secret: String? = ClaimsTestKeys.secret,
        publicKeys: Bool = false,
        issuer: String? = nil,
        audience: String? = nil,
        requiresExpiration: Bool = false
    ) async throws -> ClaimsVerifier {
        let configuration = try ClaimsConfiguration(
            secret: secret,
            keySetFile: publicKeys ? keys.keySetFile : nil,
            issuer: issuer,
            audience: audience,
            requiresExpiration: requiresExpiration
        )
        return try await ClaimsVerifier(configuration)
    }

    /// Expects `authorization` to be refused with a 401 whose detail contains `detail`, and a
    /// challenge with `error="invalid_token"` and the detail unless `invalidToken` is false.
    func expectRefusal(
        _ verifier: ClaimsVerifier,
        _ authorization: String?,
        _ detail: String,
        invalidToken: Bool = true,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        do {
            let claims = try await verifier.claims(fromAuthorization: authorization)
            Issue.record("accepted, with claims \(claims)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.status == .unauthorized, sourceLocation: sourceLocation)
            #expect(error.slug == "unauthorized", sourceLocation: sourceLocation)
            #expect(error.detail.contains(detail), "detail: \(error.detail)", sourceLocation: sourceLocation)
            let expected =
                invalidToken
                ? Self.challenge + #", error="invalid_token", error_description="\#(error.detail)""# : Self.challenge
            #expect(error.headers[.wwwAuthenticate] == expected, sourceLocation: sourceLocation)
        }
    }

    // MARK: Accepted tokens

    @Test func aGoodHS256TokenGivesItsClaimsWithNumbersAsNumbers() async throws {
        let token = try await ClaimsTestKeys.hs256([
            "sub": .string("ana"), "games": .integer(7), "ratio": .number(0.5), "exp": ClaimsTestKeys.time(600),
        ])
        let claims = try await verifier().claims(fromAuthorization: "Bearer " + token)
        #expect(claims["sub"] == .string("ana"))
        #expect(claims["games"] == .integer(7))
        #expect(claims["ratio"] == .number(0.5))
    }

    @Test func aGoodES256TokenGivesItsClaims() async throws {
        let token = try await keys.es256(["sub": .string("ben"), "exp": ClaimsTestKeys.time(600)])
        let claims = try await verifier(secret: nil, publicKeys: true).claims(fromAuthorization: "Bearer " + token)
        #expect(claims["sub"] == .string("ben"))
    }

    @Test func aGoodRS256TokenGivesItsClaims() async throws {
        let token = try await keys.rs256(["sub": .string("cy")])
        let claims = try await verifier(secret: nil, publicKeys: true).claims(fromAuthorization: "bearer " + token)
        #expect(claims["sub"] == .string("cy"))
    }

    @Test func bothSecretAndPublicKeysCanBeConfiguredTogether() async throws {
        let verifier = try await verifier(publicKeys: true)
        #expect(verifier.algorithms == ["ES256", "HS256", "RS256"])
        let hmac = try await ClaimsTestKeys.hs256(["sub": .string("ana")])
        let ecdsa = try await keys.es256(["sub": .string("ben")])
        #expect(try await verifier.claims(fromAuthorization: "Bearer " + hmac)["sub"] == .string("ana"))
        #expect(try await verifier.claims(fromAuthorization: "Bearer " + ecdsa)["sub"] == .string("ben"))
    }

    // MARK: Missing and malformed

    @Test func aRequestWithoutAnAuthorizationHeaderIsRefusedWithoutAnErrorCode() async throws {
        await expectRefusal(try await verifier(), nil, "no 'Authorization' header", invalidToken: false)
    }

    @Test func anAuthorizationHeaderOfAnotherSchemeIsRefusedWithoutAnErrorCode() async throws {
        await expectRefusal(try await verifier(), "Basic YW5hOnB3", "not hold a Bearer token", invalidToken: false)
    }

    @Test(arguments: ["Bearer ", "Bearer abc", "Bearer a.b.c", "Bearer e30.e30", "Bearer !!.??.##"])
    func aMalformedTokenIsRefused(authorization: String) async throws {
        await expectRefusal(try await verifier(), authorization, "nor a well-formed JWT")
    }

    /// A registered claim of the wrong type is named, not called a malformed token.
    @Test(
        arguments: [
            ("exp", JSONValue.string("2030-01-01T00:00:00Z"), "'exp' is not a NumericDate"),
            ("nbf", .bool(true), "'nbf' is not a NumericDate"),
            ("iss", .integer(7), "'iss' is not text"),
            ("aud", .array([.string("a"), .integer(1)]), "'aud' is neither text nor an array of texts"),
        ]
    )
    func aRegisteredClaimOfTheWrongTypeIsNamed(name: String, value: JSONValue, detail: String) async throws {
        let token = try await ClaimsTestKeys.hs256(["sub": .string("ana"), name: value])
        await expectRefusal(try await verifier(), "Bearer " + token, detail)
    }

    /// RFC 7519 makes `exp` optional; a server can be told to accept only tokens that expire.
    @Test func aTokenWithoutExpIsRefusedWhereExpIsRequired() async throws {
        let forever = try await ClaimsTestKeys.hs256(["sub": .string("ana")])
        #expect(try await verifier().claims(fromAuthorization: "Bearer " + forever)["sub"] == .string("ana"))
        let strict = try await verifier(requiresExpiration: true)
        await expectRefusal(strict, "Bearer " + forever, "no 'exp' claim")
        let expiring = try await ClaimsTestKeys.hs256([
            "sub": .string("ana"), "exp": .integer(Int64(Date().timeIntervalSince1970) + 600),
        ])
        #expect(try await strict.claims(fromAuthorization: "Bearer " + expiring)["sub"] == .string("ana"))
        let required = try #require(
            try ClaimsConfiguration.load(from: [
                "DATA_MEDIATOR_JWT_SECRET": ClaimsTestKeys.secret, "DATA_MEDIATOR_JWT_REQUIRE_EXP": "TRUE",
            ])
        )
        #expect(required.requiresExpiration)
        expectConfigurationError(
            .badValue,
            "DATA_MEDIATOR_JWT_REQUIRE_EXP must be 'true' or 'false'; it is 'yes'.",
            ["DATA_MEDIATOR_JWT_SECRET": ClaimsTestKeys.secret, "DATA_MEDIATOR_JWT_REQUIRE_EXP": "yes"]
        )
    }

    @Test func aTokenListingCriticalExtensionsIsRefused() async throws {
        var header = JWTHeader()
        header.crit = ["x-foo"]
        header[dynamicMember: "x-foo"] = .int(1)
        let keys = await JWTKeyCollection().add(hmac: HMACKey(from: ClaimsTestKeys.secret), digestAlgorithm: .sha256)
        let token = try await keys.sign(TestClaims(["sub": .string("ana")]), header: header)
        await expectRefusal(try await verifier(), "Bearer " + token, "critical extensions ('crit')")
        // The same token without `crit` is taken, with one space or several after "Bearer".
        let plain = try await ClaimsTestKeys.hs256(["sub": .string("ana")])
        #expect(try await verifier().claims(fromAuthorization: "Bearer   " + plain)["sub"] == .string("ana"))
    }

    /// A token signed over `claims`, JSON text as given (HS256 with the test secret).
    static func signed(claims: String) -> String {
        func encode(_ text: String) -> String {
            Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        let signing = encode(#"{"alg":"HS256","typ":"JWT"}"#) + "." + encode(claims)
        let key = SymmetricKey(data: Array(ClaimsTestKeys.secret.utf8))
        let mac = Data(HMAC<SHA256>.authenticationCode(for: Array(signing.utf8), using: key))
        return signing + "."
            + mac.base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    @Test func aTokenNamingAClaimTwiceIsRefused() async throws {
        let token = Self.signed(claims: #"{"sub":"ana","sub":"bo"}"#)
        await expectRefusal(try await verifier(), "Bearer " + token, "names 'sub' twice")
    }

    /// `"exp": null` (which the parser reads as no expiry) or an `iat` that is not a
    /// number is refused as a claim of the wrong type; a padded part as malformed.
    @Test func nullOrMisTypedDatesAndPaddedPartsAreRefused() async throws {
        for (claims, says) in [
            (#"{"sub":"ana","exp":null}"#, "'exp' is not a NumericDate"),
            (#"{"sub":"ana","nbf":null}"#, "'nbf' is not a NumericDate"),
            (#"{"sub":"ana","iat":"x"}"#, "'iat' is not a NumericDate"),
        ] {
            await expectRefusal(try await verifier(), "Bearer " + Self.signed(claims: claims), says)
        }
        await expectRefusal(
            try await verifier(),
            "Bearer " + Self.signed(claims: #"{"sub":"ana"}"#) + "=",
            "well-formed"
        )
    }

    /// A signature whose last character sets bits past its bytes decodes to the same bytes:
    /// another spelling of one token (RFC 4648 3.5), refused as malformed.
    @Test func aPartSpeltWithBitsPastItsBytesIsRefused() async throws {
        let token = Self.signed(claims: #"{"sub":"ana"}"#)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        // An HS256 signature is 32 bytes: 43 characters, the last one's two low bits unused.
        let last = try #require(token.last.flatMap { alphabet.firstIndex(of: $0) })
        let respelt = String(token.dropLast()) + String(alphabet[last ^ 1])
        #expect(try await verifier().claims(fromAuthorization: "Bearer " + token)["sub"] == .string("ana"))
        await expectRefusal(try await verifier(), "Bearer " + respelt, "well-formed")
    }

    /// Claims that the parser takes but are not JSON (a trailing comma) are a malformed
    /// token, as other verifiers find them; the same claims as JSON are taken.
    @Test func claimsThatAreNotStrictJSONAreRefused() async throws {
        await expectRefusal(try await verifier(), "Bearer " + Self.signed(claims: #"{"sub":"ana",}"#), "well-formed")
        let taken = try await verifier().claims(fromAuthorization: "Bearer " + Self.signed(claims: #"{"sub":"ana"}"#))
        #expect(taken["sub"] == .string("ana"))
    }

    // MARK: Algorithms

    @Test func anUnsignedTokenIsRefused() async throws {
        let token = try await ClaimsTestKeys.unsigned(["sub": .string("ana")])
        await expectRefusal(try await verifier(publicKeys: true), "Bearer " + token, "unsigned (alg 'none')")
    }

    @Test func anHS256TokenIsRefusedWhenOnlyPublicKeysAreConfigured() async throws {
        let token = try await ClaimsTestKeys.hs256(["sub": .string("ana")])
        await expectRefusal(
            try await verifier(secret: nil, publicKeys: true),
            "Bearer " + token,
            "algorithm 'HS256' is not accepted here; this server accepts ES256, RS256."
        )
    }

    @Test func anES256TokenIsRefusedWhenOnlyASecretIsConfigured() async throws {
        let token = try await keys.es256(["sub": .string("ben")])
        await expectRefusal(try await verifier(), "Bearer " + token, "algorithm 'ES256' is not accepted")
    }

    @Test func anHS256TokenSignedWithAPublicKeyAsSecretIsRefused() async throws {
        // The algorithm-confusion attack: the public key is no secret, so a verifier that let an
        // HS256 token meet it would accept tokens anybody can make.
        let publicKeys = [
            (keys.rsaKey.publicKey.pemRepresentation, ClaimsTestKeys.rsaKeyID),
            (keys.ecKey.publicKey.pemRepresentation, ClaimsTestKeys.ecKeyID),
        ]
        for (pem, kid) in publicKeys {
            let forged = try await ClaimsTestKeys.hs256(["sub": .string("mallory")], secret: pem, kid: kid)
            await expectRefusal(
                try await verifier(secret: nil, publicKeys: true),
                "Bearer " + forged,
                "algorithm 'HS256' is not accepted"
            )
            await expectRefusal(
                try await verifier(publicKeys: true),
                "Bearer " + forged,
                "key of this server but says it is signed with HS256"
            )
            let unnamed = try await ClaimsTestKeys.hs256(["sub": .string("mallory")], secret: pem)
            await expectRefusal(
                try await verifier(publicKeys: true),
                "Bearer " + unnamed,
                "signature does not match any HS256 key"
            )
        }
    }

    // MARK: Signatures

    @Test func aTokenNamingAKeyTheServerDoesNotHoldIsRefusedThoughAHeldKeySignedIt() async throws {
        // Signed with the key set's EC key, but naming another key: before, the token was
        // tried against the first key of its algorithm and accepted.
        let verifier = try await verifier(secret: nil, publicKeys: true)
        let renamed = try await keys.es256(["sub": .string("ana")], kid: "retired-1")
        await expectRefusal(
            verifier,
            "Bearer " + renamed,
            "names a key ('retired-1') this server does not hold for ES256"
        )
        let odd = try await keys.es256(["sub": .string("ana")], kid: "a key with \"quotes\"")
        await expectRefusal(verifier, "Bearer " + odd, "names a key (its 'kid') this server does not hold")
        // Naming the key that signed it, it is accepted.
        let named = try await keys.es256(["sub": .string("ana")])
        #expect(try await verifier.claims(fromAuthorization: "Bearer " + named)["sub"] == .string("ana"))
    }

    @Test func aTokenNamingOneHeldKeyButSignedByAnotherIsRefused() async throws {
        // Two EC keys held: a token names the key that signed it (RFC 7515 4.1.4), and is
        // verified by that key alone, not by whichever held key its signature matches.
        let second = ES256PrivateKey()
        let point = try #require(second.publicKey.parameters)
        let first = try #require(keys.ecKey.publicKey.parameters)
        let keySet = JWKS(keys: [
            .ecdsa(nil, identifier: JWKIdentifier(string: "ec-1"), x: first.x, y: first.y, curve: .p256),
            .ecdsa(nil, identifier: JWKIdentifier(string: "ec-2"), x: point.x, y: point.y, curve: .p256),
        ])
        let file = try keys.file("two-ec-keys.json", String(decoding: try JSONEncoder().encode(keySet), as: UTF8.self))
        let verifier = try await ClaimsVerifier(ClaimsConfiguration(secret: nil, keySetFile: file))
        let misnamed = try await keys.es256(["sub": .string("ana")], key: second, kid: "ec-1")
        await expectRefusal(verifier, "Bearer " + misnamed, "signature does not match")
        for (key, kid) in [(keys.ecKey, "ec-1"), (second, "ec-2")] {
            let named = try await keys.es256(["sub": .string("ana")], key: key, kid: kid)
            #expect(try await verifier.claims(fromAuthorization: "Bearer " + named)["sub"] == .string("ana"), "\(kid)")
        }
    }

    @Test func anHS256TokenNamingAKeyOfTheKeySetIsRefused() async throws {
        // The shared secret has no `kid`: a token naming a held ES256 key and signed with the
        // secret names a key that cannot have signed it. A `kid` the server holds nowhere is
        // the issuer's own name for its secret, and stays accepted.
        let verifier = try await verifier(publicKeys: true)
        let misnamed = try await ClaimsTestKeys.hs256(["sub": .string("ana")], kid: ClaimsTestKeys.ecKeyID)
        await expectRefusal(verifier, "Bearer " + misnamed, "names an ES256 key of this server but says it is signed")
        let named = try await ClaimsTestKeys.hs256(["sub": .string("ana")], kid: "hmac-2026")
        #expect(try await verifier.claims(fromAuthorization: "Bearer " + named)["sub"] == .string("ana"))
    }

    @Test func anHS256TokenSignedWithAnotherSecretIsRefused() async throws {
        let token = try await ClaimsTestKeys.hs256(
            ["sub": .string("ana")],
            secret: String(repeating: "other-", count: 8)
        )
        await expectRefusal(try await verifier(), "Bearer " + token, "signature does not match any HS256 key")
    }

    @Test func anES256TokenSignedWithAnotherKeyIsRefused() async throws {
        let token = try await keys.es256(["sub": .string("ben")], key: ES256PrivateKey())
        await expectRefusal(
            try await verifier(secret: nil, publicKeys: true),
            "Bearer " + token,
            "signature does not match any ES256 key"
        )
    }

    @Test func aTokenWhoseClaimsWereChangedAfterSigningIsRefused() async throws {
        let token = try await keys.rs256(["sub": .string("ana")])
        let parts = token.split(separator: ".")
        let other = try await keys.rs256(["sub": .string("root")])
        let tampered = [parts[0], other.split(separator: ".")[1], parts[2]].joined(separator: ".")
        await expectRefusal(
            try await verifier(secret: nil, publicKeys: true),
            "Bearer " + tampered,
            "signature does not match any RS256 key"
        )
    }

    // MARK: Time

    @Test func anExpiredTokenIsRefusedBeyondTheLeeway() async throws {
        let verifier = try await verifier()
        let expired = try await ClaimsTestKeys.hs256(["sub": .string("ana"), "exp": ClaimsTestKeys.time(-60)])
        await expectRefusal(verifier, "Bearer " + expired, "The token expired at ")
        let withinLeeway = try await ClaimsTestKeys.hs256(["sub": .string("ana"), "exp": ClaimsTestKeys.time(-2)])
        #expect(try await verifier.claims(fromAuthorization: "Bearer " + withinLeeway)["sub"] == .string("ana"))
    }

    @Test func aTokenNotYetValidIsRefusedBeyondTheLeeway() async throws {
        let verifier = try await verifier()
        let early = try await ClaimsTestKeys.hs256(["sub": .string("ana"), "nbf": ClaimsTestKeys.time(60)])
        await expectRefusal(verifier, "Bearer " + early, "The token is not valid before ")
        let withinLeeway = try await ClaimsTestKeys.hs256(["sub": .string("ana"), "nbf": ClaimsTestKeys.time(2)])
        #expect(try await verifier.claims(fromAuthorization: "Bearer " + withinLeeway)["sub"] == .string("ana"))
    }

    // MARK: Issuer and audience

    @Test func withAnIssuerConfiguredATokenWithoutItOrWithAnotherIsRefused() async throws {
        let verifier = try await verifier(issuer: "https://id.example")
        let none = try await ClaimsTestKeys.hs256(["sub": .string("ana")])
        await expectRefusal(verifier, "Bearer " + none, "The token has no 'iss' claim")
        let other = try await ClaimsTestKeys.hs256(["sub": .string("ana"), "iss": .string("https://evil.example")])
        await expectRefusal(verifier, "Bearer " + other, "The token's 'iss' is not the issuer")
        let good = try await ClaimsTestKeys.hs256(["sub": .string("ana"), "iss": .string("https://id.example")])
        #expect(try await verifier.claims(fromAuthorization: "Bearer " + good)["iss"] == .string("https://id.example"))
    }

    @Test func withAnAudienceConfiguredATokenWithoutItOrWithAnotherIsRefused() async throws {
        let verifier = try await verifier(audience: "data-mediator")
        let none = try await ClaimsTestKeys.hs256(["sub": .string("ana")])
        await expectRefusal(verifier, "Bearer " + none, "The token has no 'aud' claim")
        let other = try await ClaimsTestKeys.hs256([
            "sub": .string("ana"), "aud": .array([.string("billing"), .string("mail")]),
        ])
        await expectRefusal(verifier, "Bearer " + other, "The token's 'aud' does not name this server's audience")
        let single = try await ClaimsTestKeys.hs256(["sub": .string("ana"), "aud": .string("data-mediator")])
        let listed = try await ClaimsTestKeys.hs256([
            "sub": .string("ana"), "aud": .array([.string("billing"), .string("data-mediator")]),
        ])
        #expect(try await verifier.claims(fromAuthorization: "Bearer " + single)["sub"] == .string("ana"))
        #expect(try await verifier.claims(fromAuthorization: "Bearer " + listed)["sub"] == .string("ana"))
    }

    /// `iss` and `aud` are compared byte for byte (RFC 7519 2): text canonically equivalent
    /// to the configured one (`é` as `e` and U+0301) is another issuer, another audience.
    @Test func anIssuerOrAudienceIsComparedByteForByte() async throws {
        let verifier = try await verifier(issuer: "https://issu\u{E9}r", audience: "caf\u{E9}")
        for (issuer, audience) in [("https://issue\u{301}r", "caf\u{E9}"), ("https://issu\u{E9}r", "cafe\u{301}")] {
            let token = try await ClaimsTestKeys.hs256([
                "sub": .string("ana"), "iss": .string(issuer), "aud": .array([.string(audience)]),
            ])
            await expectRefusal(verifier, "Bearer " + token, "The token's '")
        }
        let exact = try await ClaimsTestKeys.hs256([
            "sub": .string("ana"), "iss": .string("https://issu\u{E9}r"), "aud": .string("caf\u{E9}"),
        ])
        #expect(try await verifier.claims(fromAuthorization: "Bearer " + exact)["sub"] == .string("ana"))
    }
}
