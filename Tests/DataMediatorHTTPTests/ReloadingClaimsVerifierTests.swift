import DataMediator
import DataMediatorHTTP
import Foundation
import HTTPTypes
import JWTKit
import Testing

/// The JWKS file is read again while the server runs: a key added to it verifies tokens, a
/// key taken out of it stops verifying them, and a file that cannot be used changes nothing.
@Suite struct ReloadingClaimsVerifierTests {
    let keys: ClaimsTestKeys

    init() throws { keys = try ClaimsTestKeys.shared.get() }

    /// The JWKS text of EC P-256 public keys by `kid`.
    static func keySet(_ ecKeys: [String: ES256PrivateKey]) throws -> String {
        let jwks = JWKS(
            keys: try ecKeys.sorted { $0.key < $1.key }.map { kid, key in
                guard let point = key.publicKey.parameters else { throw CocoaError(.coderInvalidValue) }
                return .ecdsa(nil, identifier: JWKIdentifier(string: kid), x: point.x, y: point.y, curve: .p256)
            }
        )
        return String(decoding: try JSONEncoder().encode(jwks), as: UTF8.self)
    }

    /// Whether `token` is accepted, with its `sub`.
    static func accepts(_ verifier: ReloadingClaimsVerifier, _ token: String) async -> Bool {
        (try? await verifier.claims(fromAuthorization: "Bearer " + token))?["sub"] == .string("ana")
    }

    @Test func aKeyAddedVerifiesAfterAReloadAndAKeyTakenOutStops() async throws {
        let old = ES256PrivateKey()
        let new = ES256PrivateKey()
        let path = try keys.file("rotating-\(UUID()).json", try Self.keySet(["old": old]))
        let verifier = try await ReloadingClaimsVerifier(ClaimsConfiguration(secret: nil, keySetFile: path))
        let oldToken = try await keys.es256(["sub": .string("ana")], key: old, kid: "old")
        let newToken = try await keys.es256(["sub": .string("ana")], key: new, kid: "new")
        #expect(await Self.accepts(verifier, oldToken))
        #expect(!(await Self.accepts(verifier, newToken)), "a key the file does not hold yet")
        #expect(await verifier.reload() == .unchanged)

        // The rotation publishes the new key next to the old one.
        _ = try keys.file(URL(fileURLWithPath: path).lastPathComponent, try Self.keySet(["old": old, "new": new]))
        #expect(!(await Self.accepts(verifier, newToken)), "nothing is taken before a reload")
        #expect(await verifier.reload() == .reloaded(keyIDs: ["new", "old"], skipped: []))
        #expect(await Self.accepts(verifier, newToken))
        #expect(await Self.accepts(verifier, oldToken))

        // Once the old key's tokens expired it is taken out: its tokens stop verifying.
        _ = try keys.file(URL(fileURLWithPath: path).lastPathComponent, try Self.keySet(["new": new]))
        #expect(await verifier.reload() == .reloaded(keyIDs: ["new"], skipped: []))
        #expect(await Self.accepts(verifier, newToken))
        await expectRefused(verifier, oldToken, "The token names a key ('old') this server does not hold for ES256")
    }

    @Test func aFileThatCannotBeUsedKeepsTheKeysInUse() async throws {
        let key = ES256PrivateKey()
        let name = "kept-\(UUID()).json"
        let path = try keys.file(name, try Self.keySet(["k1": key]))
        let verifier = try await ReloadingClaimsVerifier(ClaimsConfiguration(secret: nil, keySetFile: path))
        let token = try await keys.es256(["sub": .string("ana")], key: key, kid: "k1")
        for (text, says) in [
            ("{\"keys\": [", "is not a JSON Web Key Set"),
            ("{\"keys\": []}", "holds no keys"),
            ("{\"keys\": [{\"kty\": \"oct\", \"kid\": \"h\", \"k\": \"c2VjcmV0\"}]}", "no key this service verifies"),
        ] {
            _ = try keys.file(name, text)
            guard case .refused(let why) = await verifier.reload() else {
                Issue.record("\(text) was taken")
                continue
            }
            #expect(why.contains(path) && why.contains(says), "\(why)")
            #expect(await Self.accepts(verifier, token), "the keys in use stay after \(text)")
        }
        try FileManager.default.removeItem(atPath: path)
        guard case .refused(let why) = await verifier.reload() else {
            Issue.record("a missing file was taken")
            return
        }
        #expect(why.contains("does not exist"), "\(why)")
        #expect(await Self.accepts(verifier, token))
        #expect(verifier.algorithms == ["ES256"])
    }

    @Test func aReloadLeavesOutKeysOfOtherKindsAndSaysWhich() async throws {
        let key = ES256PrivateKey()
        let name = "mixed-\(UUID()).json"
        let path = try keys.file(name, try Self.keySet(["k1": key]))
        let verifier = try await ReloadingClaimsVerifier(ClaimsConfiguration(secret: nil, keySetFile: path))
        var members = try #require(
            try JSONSerialization.jsonObject(with: Data(try Self.keySet(["k2": key]).utf8)) as? [String: Any]
        )
        members["keys"] =
            (members["keys"] as? [Any] ?? []) + [["kty": "OKP", "kid": "ed", "crv": "Ed25519", "x": "AQAB"]]
        _ = try keys.file(name, String(decoding: try JSONSerialization.data(withJSONObject: members), as: UTF8.self))
        #expect(await verifier.reload() == .reloaded(keyIDs: ["k2"], skipped: ["key 'ed' is of type 'OKP'"]))
        #expect(await Self.accepts(verifier, try await keys.es256(["sub": .string("ana")], key: key, kid: "k2")))
    }

    @Test func aVerifierWithoutAKeySetFileHasNothingToReload() async throws {
        let verifier = try await ReloadingClaimsVerifier(
            ClaimsConfiguration(secret: ClaimsTestKeys.secret, keySetFile: nil)
        )
        #expect(verifier.keySetFile == nil)
        #expect(await verifier.reload() == .unchanged)
        #expect(await Self.accepts(verifier, try await ClaimsTestKeys.hs256(["sub": .string("ana")])))
    }

    private func expectRefused(
        _ verifier: ReloadingClaimsVerifier,
        _ token: String,
        _ detail: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        do {
            _ = try await verifier.claims(fromAuthorization: "Bearer " + token)
            Issue.record("accepted", sourceLocation: sourceLocation)
        } catch {
            #expect(error.status == .unauthorized, sourceLocation: sourceLocation)
            #expect(error.detail.contains(detail), "\(error.detail)", sourceLocation: sourceLocation)
        }
    }
}
