import Crypto
import DataMediator
import Hummingbird

/// Who sends a request, for the per-client shares (``ClientShares``): a credential the
/// server verified, else the address the request comes from.
///
/// An `Authorization` value counts only when it verifies: one of the configured tokens
/// (as the digest of the token itself, so `Bearer  t` and `bearer t` are one client; a
/// read token at the address it comes from, as an app's one token is each of its users'), or a
/// JWT that the list keys verify (as its `sub`, so one user's tokens are one client; a JWT
/// without `sub` as the claims it names that are not its own token's: ``holder(of:)``).
/// Anything else, a made-up token included, is the sender's address (behind a
/// trusted proxy, the one its `X-Forwarded-For` names: ``TrustedProxies``; an IPv6
/// address as its /64: ``network(of:)``): a client cannot become many by sending many
/// made-up tokens, nor from many addresses of its own network.
struct ClientIdentity: Sendable {
    /// The configured read and write tokens.
    let tokens: BearerAccess
    /// Verifies a JWT (the `Authorization` field); nil when no key is configured.
    let verify: (@Sendable (_ authorization: String?) async throws -> [String: JSONValue])?
    /// The proxies whose `X-Forwarded-For` names the address a request comes from.
    var proxies = TrustedProxies.none
    /// The read tokens that are no write tokens: one such token may be handed to many
    /// users (built into an app), and counted as one client, one of them took every
    /// stream and share of all the others; counted with its address, each is its own.
    /// A write token is one client wherever it comes from (its reads wait for its writes).
    var readOnlyTokens = BearerAccess(tokens: [])

    /// Whether the sender of `request` may have written: every write carries a write token
    /// or a JWT (``BearerAccess/authorize(_:)``, the scope's claims), so a request without
    /// credentials is not a writer's, and has no write of its own to wait for.
    static func mayHaveWritten(_ request: Request) -> Bool {
        request.headers[.authorization] != nil
    }

    /// Whether `client` (``client(of:context:)``) is a credential the server verified,
    /// not an address.
    static func isCredential(_ client: String) -> Bool {
        client.hasPrefix("token:") || client.hasPrefix("subject:") || client.hasPrefix("holder:")
    }

    /// The claims every token or login has its own of (its lifetime and id, RFC 7519; the
    /// login's time, nonce, session and hashes, OpenID Connect Core 2 and Front-Channel
    /// Logout): a login or a refresh mints new ones for the same holder.
    static let perTokenClaims = ["exp", "iat", "nbf", "jti", "auth_time", "nonce", "sid", "at_hash", "c_hash"]

    /// The client a JWT without `sub` stands for: the digest of its other claims (`iss`,
    /// `aud`, the scope's claims, ...). Counted by the token itself, each fresh token of
    /// one holder (a new `jti` or `exp`) was a new client, with shares and rates of its
    /// own: one holder took every event stream of the service.
    static func holder(of claims: [String: JSONValue]) -> String {
        var named = claims
        for claim in perTokenClaims { named[claim] = nil }
        var writer = JSONWriter(capacity: 256)
        writer.write(JSONValue.object(named))
        return "holder:" + Hex.string(Array(SHA256.hash(data: writer.bytes).prefix(12)))
    }

    /// The client of `request`.
    func client(of request: Request, context: some RequestContext) async -> String {
        if request.headers[.authorization] != nil {
            if tokens.accepts(request) {
                let token = "token:" + BearerAccess.credential(of: request)
                guard readOnlyTokens.accepts(request) else { return token }
                return token + "@" + address(of: request, context: context)
            }
            if let verify, let claims = try? await verify(request.headers[.authorization]) {
                if case .string(let subject)? = claims["sub"] {
                    return "subject:" + Hex.string(Array(SHA256.hash(data: Array(subject.utf8)).prefix(12)))
                }
                return Self.holder(of: claims)
            }
        }
        return "address:" + address(of: request, context: context)
    }

    /// The address `request` comes from (``TrustedProxies``), as its network
    /// (``network(of:)``); `unknown` when the context cannot tell.
    private func address(of request: Request, context: some RequestContext) -> String {
        guard let address = (context as? any RemoteAddressRequestContext)?.remoteAddress?.ipAddress else {
            return "unknown"
        }
        return Self.network(of: proxies.client(peer: address, headers: request.headers))
    }

    /// What an address counts as to the per-client shares: an IPv4 address itself, an IPv6
    /// address its /64 (`2001:db8:1:2::/64`). A host is given a whole /64 and may send
    /// from any address of it without asking anyone: counted one by one, a single host
    /// would be as many clients as it liked, and take every stream and share. An IPv4
    /// address a translator wrote into IPv6 (the well-known prefix `64:ff9b::/96`, RFC
    /// 6052, as a service reached through SIIT or NAT64 sees its IPv4 clients) counts as
    /// that IPv4 address: by its /64 every IPv4 client would have been one.
    static func network(of address: String) -> String {
        guard let bytes = TrustedProxies.bytes(of: address) else { return address }
        guard bytes.count == 16 else { return TrustedProxies.text(of: bytes) }
        if bytes.prefix(12).elementsEqual(translatedIPv4) { return TrustedProxies.text(of: Array(bytes.suffix(4))) }
        return TrustedProxies.text(of: Array(bytes.prefix(8)) + [UInt8](repeating: 0, count: 8)) + "/64"
    }

    /// The first 12 bytes of an IPv4 address written into IPv6 by a translator: `64:ff9b::/96`.
    private static let translatedIPv4: [UInt8] = [0x00, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0]
}
