import DataMediatorTesting
import Foundation
import Testing

/// Without `DATA_MEDIATOR_JWT_AUDIENCE` a JWT is accepted whatever its `aud` names (API.md
/// checks `aud` when one is configured; RFC 7519 4.1.3 would refuse a token not meant for
/// its reader): `serve` says so at start when it serves scoped lists, so that an operator
/// whose identity provider's keys other services share knows to set it (review 81).
@Suite struct AudienceNoticeTests {
    static let notice = "JWTs are accepted whatever their 'aud' names"

    @Test(arguments: [false, true])
    func aServiceWithoutAnAudienceSaysItAcceptsAny(configured: Bool) async throws {
        var environment = ["DATA_MEDIATOR_JWT_SECRET": "q8Zr3kLw0pVx7TnB2cYh5MfJ9dGs4aUe"]
        if configured { environment["DATA_MEDIATOR_JWT_AUDIENCE"] = "data-mediator" }
        let server = try await ServerProcess(arguments: ["--demo-transactions", "10"], environment: environment)
        defer { server.removeData() }
        #expect(await server.stop() == 0)
        #expect(server.log.contains(Self.notice) == !configured, "\(server.log)")
    }

    /// A key set may hold several identity providers' keys: without an issuer, a `sub` two
    /// of them issue is one caller (review 98 #4), and `serve` says so.
    @Test(arguments: [false, true])
    func aKeySetWithoutAnIssuerSaysItAcceptsAny(configured: Bool) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dm-issuer-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("keys.json")
        try KeySetReloadTests.write([KeySetReloadTests.SigningKey(kid: "k")], to: file)
        var environment = ["DATA_MEDIATOR_JWKS_FILE": file.path]
        if configured { environment["DATA_MEDIATOR_JWT_ISSUER"] = "https://id.example" }
        let server = try await ServerProcess(
            dataDirectory: folder,
            arguments: ["--demo-transactions", "10"],
            environment: environment
        )
        defer { server.removeData() }
        #expect(await server.stop() == 0)
        #expect(server.log.contains("JWTs of any issuer whose key the key set holds") == !configured, "\(server.log)")
    }
}
