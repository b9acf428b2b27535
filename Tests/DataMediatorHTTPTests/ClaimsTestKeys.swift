import CryptoExtras
import DataMediator
import Foundation
import JWTKit

/// Keys made in-process for the claims tests: an HS256 secret, an ES256 and an RS256 key pair
/// whose public halves are written as a JWKS file to a temporary folder, and jwt-kit
/// collections that sign tokens with them.
struct ClaimsTestKeys: Sendable {
    /// An HS256 secret long enough for the configuration to take.
    static let secret = "claims-test-secret-0123456789-abcdefghij"
    /// The `kid` of the EC key in the JWKS file.
    static let ecKeyID = "ec-1"
    /// The `kid` of the RSA key in the JWKS file.
    static let rsaKeyID = "rsa-1"

    /// Made once: generating an RSA key takes a while.
    static let shared = Result { try ClaimsTestKeys() }

    let ecKey: ES256PrivateKey
    let rsaKey: JWTKit.Insecure.RSA.PrivateKey
    /// The JWKS file with both public keys, without `alg`, so the configuration infers it.
    let keySetFile: String
    /// The folder of the key set file and other files the tests write.
    let directory: URL

    private init() throws {
        ecKey = ES256PrivateKey()
        rsaKey = try JWTKit.Insecure.RSA.PrivateKey(backing: _RSA.Signing.PrivateKey(keySize: .bits2048))
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("claims-verifier-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        guard let point = ecKey.publicKey.parameters else { throw CocoaError(.coderInvalidValue) }
        let primitives = try rsaKey.publicKey.getKeyPrimitives()
        let keySet = JWKS(keys: [
            .ecdsa(nil, identifier: JWKIdentifier(string: Self.ecKeyID), x: point.x, y: point.y, curve: .p256),
            .rsa(
                nil,
                identifier: JWKIdentifier(string: Self.rsaKeyID),
                modulus: Self.base64URL(primitives.modulus),
                exponent: Self.base64URL(primitives.publicExponent)
            ),
        ])
        keySetFile = directory.appendingPathComponent("keys.json").path
        try JSONEncoder().encode(keySet).write(to: URL(fileURLWithPath: keySetFile))
    }

    /// Writes `text` to a new file in the temporary folder and answers its path.
    func file(_ name: String, _ text: String) throws -> String {
        let path = directory.appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A token of `claims` signed with the HS256 `secret`.
    static func hs256(_ claims: [String: JSONValue], secret: String = secret, kid: String? = nil) async throws -> String
    {
        let keys = await JWTKeyCollection().add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
        return try await keys.sign(TestClaims(claims), kid: kid.map { JWKIdentifier(string: $0) })
    }

    /// A token of `claims` signed with the ES256 key (or `key`), naming `kid`.
    func es256(_ claims: [String: JSONValue], key: ES256PrivateKey? = nil, kid: String = ecKeyID) async throws -> String
    {
        let keys = await JWTKeyCollection().add(ecdsa: key ?? ecKey)
        return try await keys.sign(TestClaims(claims), kid: JWKIdentifier(string: kid))
    }

    /// A token of `claims` signed with the RS256 key, naming `kid`.
    func rs256(_ claims: [String: JSONValue], kid: String = rsaKeyID) async throws -> String {
        let keys = await JWTKeyCollection().add(rsa: rsaKey, digestAlgorithm: .sha256)
        return try await keys.sign(TestClaims(claims), kid: JWKIdentifier(string: kid))
    }

    /// A token of `claims` with `alg: none` and no signature.
    static func unsigned(_ claims: [String: JSONValue]) async throws -> String {
        let keys = await JWTKeyCollection().addUnsecuredNone()
        return try await keys.sign(TestClaims(claims))
    }

    /// Seconds since 1970 `offset` seconds from now, as a claim value.
    static func time(_ offset: Int) -> JSONValue {
        .integer(Int64(Date().timeIntervalSince1970) + Int64(offset))
    }

    private static func base64URL(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

/// Claims of any shape for jwt-kit to sign.
struct TestClaims: JWTPayload {
    var members: [String: JSONValue]

    init(_ members: [String: JSONValue]) { self.members = members }

    init(from decoder: any Decoder) throws {
        members = try decoder.singleValueContainer().decode([String: JSONValue].self)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(members)
    }

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
