import Crypto
import DataMediator
import DataMediatorHTTP
import Foundation
import HTTPTypes
import JWTKit
import Testing

/// Settings that cannot verify tokens are refused when the configuration is made.
extension ClaimsVerifierTests {
    func expectConfigurationError(
        _ code: ClaimsConfigurationError.Code,
        _ message: String,
        _ environment: [String: String],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            _ = try ClaimsConfiguration.load(from: environment)
            Issue.record("accepted", sourceLocation: sourceLocation)
        } catch {
            #expect(error.code == code, sourceLocation: sourceLocation)
            #expect(error.message.contains(message), "message: \(error.message)", sourceLocation: sourceLocation)
        }
    }

    @Test func aSecretShorterThan32BytesIsAConfigurationError() {
        expectConfigurationError(
            .shortSecret,
            "DATA_MEDIATOR_JWT_SECRET must be at least 32 bytes long; it is 31.",
            ["DATA_MEDIATOR_JWT_SECRET": String(repeating: "x", count: 31)]
        )
        #expect(
            (try? ClaimsConfiguration.load(from: ["DATA_MEDIATOR_JWT_SECRET": "0123456789abcdef" + "fedcba9876543210"]))
                != nil
        )
    }

    /// A placeholder long enough (`xxxx...`, spaces) is no secret; an issuer or audience
    /// with spaces around it matches no token's claim.
    @Test func aPlaceholderSecretOrABlankIssuerIsAConfigurationError() {
        for placeholder in [
            String(repeating: "x", count: 40), String(repeating: " ", count: 40),
            "abcabcabc" + String(repeating: "d", count: 30),
        ] {
            expectConfigurationError(.shortSecret, "a placeholder", ["DATA_MEDIATOR_JWT_SECRET": placeholder])
        }
        let secret = "0123456789abcdef" + "fedcba9876543210"
        for (name, value) in [
            ("DATA_MEDIATOR_JWT_ISSUER", " "), ("DATA_MEDIATOR_JWT_ISSUER", "https://id.example "),
            ("DATA_MEDIATOR_JWT_AUDIENCE", "\tapp"),
        ] {
            expectConfigurationError(.badValue, "\(name) is", ["DATA_MEDIATOR_JWT_SECRET": secret, name: value])
            // With no key set yet, too: the value is wrong either way.
            expectConfigurationError(.badValue, "\(name) is", [name: value])
        }
    }

    @Test func withNeitherSecretNorKeySetThereIsNoConfiguration() throws {
        #expect(try ClaimsConfiguration.load(from: [:]) == nil)
        #expect(
            try ClaimsConfiguration.load(from: ["DATA_MEDIATOR_JWT_SECRET": "", "DATA_MEDIATOR_JWT_ISSUER": "x"]) == nil
        )
    }

    @Test func theEnvironmentNamesTheKeysIssuerAndAudience() throws {
        let configuration = try #require(
            try ClaimsConfiguration.load(from: [
                "DATA_MEDIATOR_JWKS_FILE": keys.keySetFile,
                "DATA_MEDIATOR_JWT_ISSUER": "https://id.example",
                "DATA_MEDIATOR_JWT_AUDIENCE": "data-mediator",
            ])
        )
        #expect(configuration.keySetFile == keys.keySetFile && !configuration.acceptsSharedSecret)
        #expect(configuration.issuer == "https://id.example" && configuration.audience == "data-mediator")
        #expect(configuration.leeway == .seconds(5))
    }

    @Test func aMissingKeySetFileAFolderOrADeviceIsAConfigurationError() {
        let path = keys.directory.appendingPathComponent("missing.json").path
        expectConfigurationError(.unreadableKeySet, "'\(path)' does not exist", ["DATA_MEDIATOR_JWKS_FILE": path])
        expectConfigurationError(
            .unreadableKeySet,
            "'\(keys.directory.path)' is a folder",
            ["DATA_MEDIATOR_JWKS_FILE": keys.directory.path]
        )
        // Foundation called `/dev/null` a permission problem.
        expectConfigurationError(
            .unreadableKeySet,
            "'/dev/null' is not a regular file",
            ["DATA_MEDIATOR_JWKS_FILE": "/dev/null"]
        )
    }

    @Test(arguments: [
        ("not json", "is not a JSON Web Key Set"),
        (#"{"keys": []}"#, "holds no keys"),
        (
            #"{"keys": [{"kty": "oct", "kid": "k", "k": "c2VjcmV0"}, {"kty": "RSA", "kid": "r", "use": "enc"}]}"#,
            "holds no key this service verifies with (public RSA keys for RS256, EC P-256 keys for ES256): key 'k' "
                + "is of type 'oct' (a shared secret goes in DATA_MEDIATOR_JWT_SECRET); key 'r' is for 'enc'"
        ),
        ("{\"keys\": [3]}", "is not a JSON Web Key Set"),
        (#"{"keys": [{"kty": "RSA", "n": "AQAB", "e": "AQAB"}]}"#, "key 1 has no 'kid'"),
        (#"{"keys": [{"kty": "RSA", "kid": "", "n": "AQAB", "e": "AQAB"}]}"#, "has no 'kid' (or an empty one)"),
        (
            #"{"keys": [{"kty": "RSA", "kid": "r", "n": "AQAB", "e": "AQAB"}, {"kty": "RSA", "kid": "r", "n": "AQAB", "e": "AQAB"}]}"#,
            "key 'r' is named twice"
        ),
        (#"{"keys": [{"kty": "RSA", "kid": "r", "n": "AQAB", "e": "AQAB", "d": "AQAB"}]}"#, "holds a private key"),
        (
            #"{"keys": [{"kty": "EC", "kid": "e", "crv": "P-256", "x": "AQAB", "y": "AQAB"}, {"kty": "RSA", "kid": "x", "use": "enc", "n": "AQAB", "e": "AQAB", "d": "AQAB"}]}"#,
            "key 'x' holds a private key"
        ),
    ])
    func aMalformedKeySetFileIsAConfigurationError(text: String, message: String) throws {
        let path = try keys.file("keys-\(UUID().uuidString).json", text)
        expectConfigurationError(.malformedKeySet, message, ["DATA_MEDIATOR_JWKS_FILE": path])
    }

    /// An identity provider's set holds keys for encryption and of other types beside its
    /// signing keys: they are left out, as RFC 7517 section 5 says, and named.
    @Test func keysOfOtherKindsAreLeftOutAndNamed() async throws {
        let key = ES256PrivateKey()
        let point = try #require(key.publicKey.parameters)
        let signing: [String: Any] = ["kty": "EC", "kid": "sig", "crv": "P-256", "x": point.x, "y": point.y]
        let others: [[String: Any]] = [
            ["kty": "RSA", "kid": "enc", "use": "enc", "n": "AQAB", "e": "AQAB"],
            ["kty": "OKP", "crv": "Ed25519", "x": "AQAB"],
            ["kty": "oct", "kid": "h", "k": "c2VjcmV0"],
            ["kty": "RSA", "kid": "ops", "key_ops": ["encrypt"], "n": "AQAB", "e": "AQAB"],
            ["kty": "RSA", "kid": "ps", "alg": "PS256", "n": "AQAB", "e": "AQAB"],
            ["kty": "EC", "kid": "p384", "crv": "P-384", "x": "AQAB", "y": "AQAB"],
            ["kty": "EC", "kid": "nocrv", "x": "AQAB", "y": "AQAB"],
        ]
        let text = String(
            decoding: try JSONSerialization.data(withJSONObject: ["keys": others + [signing]]),
            as: UTF8.self
        )
        let configuration = try ClaimsConfiguration(secret: nil, keySetFile: try keys.file("idp.json", text))
        #expect(
            configuration.skippedKeys == [
                "key 'enc' is for 'enc', not for signatures ('use': 'sig')", "key 2 is of type 'OKP'",
                "key 'h' is of type 'oct' (a shared secret goes in DATA_MEDIATOR_JWT_SECRET)",
                "key 'ops' has 'key_ops' without 'verify'",
                "key 'ps' is RSA with PS256; only RS256 (RSA) and ES256 (EC P-256) keys are taken",
                "key 'p384' is EC on curve P-384; only ES256 (EC P-256) keys are taken",
                "key 'nocrv' is EC with no 'crv'; only ES256 (EC P-256) keys are taken",
            ]
        )
        let verifier = try await ClaimsVerifier(configuration)
        let token = try await keys.es256(["sub": .string("ana")], key: key, kid: "sig")
        #expect(try await verifier.claims(fromAuthorization: "Bearer " + token)["sub"] == .string("ana"))
        // A token naming a key left out is told so, not that the key may have gone.
        let leftOut = try await keys.es256(["sub": .string("ana")], key: key, kid: "p384")
        await #expect {
            try await verifier.claims(fromAuthorization: "Bearer " + leftOut)
        } throws: { error in
            (error as? Problem)?.detail.contains("that the key set holds but this server does not verify with") == true
        }
    }

    @Test func aKeyJWTKitCannotUseIsAConfigurationErrorOfTheVerifier() async throws {
        let path = try keys.file("short-rsa.json", #"{"keys": [{"kty": "RSA", "kid": "r", "n": "AQAB", "e": "AQAB"}]}"#)
        let configuration = try ClaimsConfiguration(secret: nil, keySetFile: path)
        do {
            _ = try await ClaimsVerifier(configuration)
            Issue.record("accepted")
        } catch {
            #expect(error.code == .malformedKeySet)
            #expect(error.message.contains("key 'r' cannot be used as an RS256 key"))
        }
    }
}
