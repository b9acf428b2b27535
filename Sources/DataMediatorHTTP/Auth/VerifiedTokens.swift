import Crypto
import Synchronization

/// The tokens a ``ClaimsVerifier`` has verified, by their SHA-256, with their claims.
///
/// An app sends one token with every request for as long as the token lives, and a scoped
/// read looks at it up to three times (read access, the list's scope, the client's identity):
/// each token's signature and form are checked once, and only its time window (`exp`,
/// `nbf`) at every use. A verifier's tokens go with it, so a key taken out of the key set
/// (a new verifier) verifies its tokens again. Bounded: at most ``capacity`` tokens of at
/// most ``longest`` bytes are kept (one is dropped for each new one beyond), so a client
/// sending fresh tokens costs what it cost before and no more memory.
final class VerifiedTokens: Sendable {
    /// The most tokens kept.
    static let capacity = 1024
    /// The longest token kept, in bytes.
    static let longest = 4096

    private let kept = Mutex<[SHA256Digest: TokenClaims]>([:])

    /// The claims of `token` when it was verified before.
    func claims(of token: String) -> TokenClaims? {
        guard token.utf8.count <= Self.longest else { return nil }
        let digest = SHA256.hash(data: Array(token.utf8))
        return kept.withLock { $0[digest] }
    }

    /// Keeps the claims of `token`, verified now.
    func keep(_ claims: TokenClaims, of token: String) {
        guard token.utf8.count <= Self.longest else { return }
        let digest = SHA256.hash(data: Array(token.utf8))
        kept.withLock { tokens in
            if tokens.count >= Self.capacity, tokens[digest] == nil { tokens.remove(at: tokens.startIndex) }
            tokens[digest] = claims
        }
    }

    /// How many tokens are kept.
    var count: Int { kept.withLock { $0.count } }
}
