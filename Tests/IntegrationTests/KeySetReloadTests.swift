import Crypto
import DataMediatorTesting
import Foundation
import Glibc
import Testing

/// The running service reads its JWKS file again on SIGHUP and every
/// `DATA_MEDIATOR_JWKS_RELOAD_SECONDS`: keys rotate without a restart, a file that cannot
/// be used keeps the keys in use, and the process goes on serving throughout.
@Suite struct KeySetReloadTests {
    /// An ES256 key and the tokens it signs.
    struct SigningKey {
        let kid: String
        let key = P256.Signing.PrivateKey()

        /// The public half as a JWK.
        var jwk: String {
            let point = key.publicKey.rawRepresentation
            return #"{"kty":"EC","crv":"P-256","kid":"\#(kid)","x":"\#(Self.base64URL(point.prefix(32)))","#
                + #""y":"\#(Self.base64URL(point.suffix(32)))"}"#
        }

        /// A token for `sub` that expires in an hour.
        func token(sub: String) throws -> String {
            let exp = Int(Date().timeIntervalSince1970) + 3600
            let signing =
                Self.base64URL(Data(#"{"alg":"ES256","typ":"JWT","kid":"\#(kid)"}"#.utf8)) + "."
                + Self.base64URL(Data(#"{"sub":"\#(sub)","exp":\#(exp)}"#.utf8))
            let signature = try key.signature(for: Data(signing.utf8))
            return signing + "." + Self.base64URL(signature.rawRepresentation)
        }

        static func base64URL(_ data: Data) -> String {
            data.base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
    }

    static func write(_ keys: [SigningKey], to file: URL) throws {
        try Data(#"{"keys":[\#(keys.map(\.jwk).joined(separator: ","))]}"#.utf8).write(to: file, options: .atomic)
    }

    /// The status of a read of the caller's own slice with `key`'s token.
    static func status(_ server: ServerProcess, _ key: SigningKey) async throws -> Int {
        try await server.get("/lists/mine/items", headers: ["Authorization": "Bearer " + key.token(sub: "ana")]).status
    }

    /// Waits up to 10 s for `condition`.
    static func eventually(_ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return try await condition()
    }

    /// A demo server whose key set file (in its data folder) holds `keys` and is read again
    /// every `reloadSeconds` (0: on SIGHUP only); the server, and the file.
    static func server(
        keys: [SigningKey],
        reloadSeconds: Int,
        environment: [String: String] = [:]
    ) async throws -> (ServerProcess, URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dm-jwks-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("keys.json")
        try write(keys, to: file)
        let server = try await ServerProcess(
            dataDirectory: folder,
            arguments: ["--demo-transactions", "10"],
            environment: [
                "DATA_MEDIATOR_JWKS_FILE": file.path, "DATA_MEDIATOR_JWKS_RELOAD_SECONDS": "\(reloadSeconds)",
            ].merging(environment) { $1 }
        )
        return (server, file)
    }

    @Test func aKeyOfAnotherTypeIsLeftOutWithAWarningAtStart() async throws {
        let key = SigningKey(kid: "sig")
        let (server, file) = try await Self.server(keys: [key], reloadSeconds: 0)
        defer { server.removeData() }
        _ = await server.stop()
        try Data(#"{"keys":[{"kty":"OKP","kid":"ed","crv":"Ed25519","x":"AQAB"},\#(key.jwk)]}"#.utf8).write(to: file)
        let restarted = try await ServerProcess(
            dataDirectory: file.deletingLastPathComponent(),
            arguments: ["--demo-transactions", "10"],
            environment: ["DATA_MEDIATOR_JWKS_FILE": file.path, "DATA_MEDIATOR_JWKS_RELOAD_SECONDS": "0"]
        )
        #expect(try await Self.status(restarted, key) == 200)
        #expect(restarted.log.contains("key set: key 'ed' is of type 'OKP'; it is left out"), "\(restarted.log)")
    }

    @Test func sighupTakesANewKeyAndABadFileKeepsTheOldOnes() async throws {
        let old = SigningKey(kid: "old")
        let new = SigningKey(kid: "new")
        let (server, file) = try await Self.server(keys: [old], reloadSeconds: 0)
        defer { server.removeData() }
        #expect(try await Self.status(server, old) == 200)
        #expect(try await Self.status(server, new) == 401)

        try Self.write([old, new], to: file)
        // Reloads on SIGHUP only here: a second later the new key is still unknown.
        try await Task.sleep(for: .seconds(1))
        #expect(try await Self.status(server, new) == 401)
        kill(server.process.processIdentifier, SIGHUP)
        #expect(try await Self.eventually { try await Self.status(server, new) == 200 }, "\(server.log)")
        #expect(try await Self.status(server, old) == 200)
        #expect(server.log.contains("key set reloaded"))

        try Data(#"{"keys": ["#.utf8).write(to: file)
        kill(server.process.processIdentifier, SIGHUP)
        #expect(try await Self.eventually { server.log.contains("key set not reloaded") }, "\(server.log)")
        #expect(server.log.contains("is not a JSON Web Key Set"))
        #expect(try await Self.status(server, new) == 200, "the keys in use stay")
        #expect(server.process.isRunning)
        #expect(await server.stop() == 0)
    }

    @Test func theFileIsReadAgainEveryIntervalAndAKeyTakenOutStopsVerifying() async throws {
        let old = SigningKey(kid: "old")
        let new = SigningKey(kid: "new")
        let (server, file) = try await Self.server(keys: [old, new], reloadSeconds: 1)
        defer { server.removeData() }
        #expect(try await Self.status(server, old) == 200)
        try Self.write([new], to: file)
        #expect(try await Self.eventually { try await Self.status(server, old) == 401 }, "\(server.log)")
        #expect(try await Self.status(server, new) == 200)
        #expect(await server.stop() == 0)
    }

    /// Taking a key out is how a leaked one is revoked: the event streams its tokens opened
    /// end too, within a heartbeat of the reload, saying why; the others go on (review 105
    /// #1: a stream opened before went on carrying the caller's slice).
    @Test func aKeyTakenOutEndsTheStreamsItsTokensOpened() async throws {
        let old = SigningKey(kid: "old")
        let new = SigningKey(kid: "new")
        let (server, file) = try await Self.server(
            keys: [old, new],
            reloadSeconds: 0,
            environment: ["DATA_MEDIATOR_HEARTBEAT_SECONDS": "1"]
        )
        defer { server.removeData() }
        let folder = file.deletingLastPathComponent()
        func stream(_ key: SigningKey) throws -> (ChildProcess, URL) {
            let output = folder.appendingPathComponent("\(key.kid).txt")
            let curl = try ChildProcess(
                "/usr/bin/curl",
                ["-sN", "-H", "Authorization: Bearer " + key.token(sub: "ana"), server.base + "/lists/mine/events"],
                standardOutput: output.path
            )
            return (curl, output)
        }
        let (revoked, revokedText) = try stream(old)
        let (kept, keptText) = try stream(new)
        defer { for curl in [revoked, kept] where curl.isRunning { kill(curl.processIdentifier, SIGKILL) } }
        // Both streams run past a heartbeat with their keys held.
        #expect(
            try await Self.eventually {
                [revokedText, keptText].allSatisfy {
                    (try? String(contentsOf: $0, encoding: .utf8))?.contains(": heartbeat") == true
                }
            }
        )
        #expect(revoked.isRunning && kept.isRunning)
        try Self.write([new], to: file)
        kill(server.process.processIdentifier, SIGHUP)
        #expect(try await Self.eventually { !revoked.isRunning }, "\(server.log)")
        let said = try String(contentsOf: revokedText, encoding: .utf8)
        #expect(said.hasSuffix(": token no longer accepted; open the stream again with a valid token\n\n"), "\(said)")
        #expect(server.log.contains("token revoked"))
        try await Task.sleep(for: .seconds(2))
        #expect(kept.isRunning, "a stream whose key stays goes on")
        #expect(await server.stop() == 0)
    }

    @Test func aReloadIntervalOutOfRangeIsNamed() async throws {
        for value in ["-1", "86401", "often"] {
            let (status, says) = try await DemoWalkTests.run(
                ["serve", "--port", "0", "--demo-transactions", "1"],
                environment: ["DATA_MEDIATOR_JWKS_RELOAD_SECONDS": value, "DATA_MEDIATOR_CONFIG": ""]
            )
            #expect(status == 1 && says.contains("DATA_MEDIATOR_JWKS_RELOAD_SECONDS"), "\(value): \(says)")
        }
    }
}
