import DataMediator
import JWTKit

/// A token's payload as jwt-kit decodes it: every claim as a ``JSONValue``, and the registered
/// claims that ``ClaimsVerifier`` checks as jwt-kit's claim types.
///
/// Its own `verify(using:)` checks nothing: the time and issuer checks need the configured
/// leeway, issuer and audience, so the verifier runs them after the signature is verified.
struct TokenClaims: JWTPayload {
    /// Every claim of the payload, numbers as numbers.
    var values: [String: JSONValue]
    var expiration: ExpirationClaim?
    var notBefore: NotBeforeClaim?
    var issuer: IssuerClaim?
    var audience: AudienceClaim?

    private enum RegisteredKeys: String, CodingKey {
        case exp, nbf, iss, aud
    }

    init(from decoder: any Decoder) throws {
        values = try decoder.singleValueContainer().decode([String: JSONValue].self)
        let registered = try decoder.container(keyedBy: RegisteredKeys.self)
        expiration = try registered.decodeIfPresent(ExpirationClaim.self, forKey: .exp)
        notBefore = try registered.decodeIfPresent(NotBeforeClaim.self, forKey: .nbf)
        issuer = try registered.decodeIfPresent(IssuerClaim.self, forKey: .iss)
        audience = try registered.decodeIfPresent(AudienceClaim.self, forKey: .aud)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(values)
    }

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
