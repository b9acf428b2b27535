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
}
