import Crypto
import Synchronization

/// What a ``ClaimsVerifier`` learnt of the tokens it verified, by their SHA-256: the claims
/// of those it accepted, or the refusal of those it refused.
///
/// An app sends one token with every request for as long as the token lives, and a scoped
/// read looks at it up to three times (read access, the list's scope, the client's identity):
/// each token's signature and form are checked once, and only its time window (`exp`,
/// `nbf`) at every use. A refused token is kept apart, so that a request carrying a forged
/// one costs one signature check, not three, and forged tokens never push accepted ones
/// out. A verifier's tokens go with it, so a key taken out of (or added to) the key set (a
/// new verifier) verifies its tokens again. Bounded: at most ``capacity`` tokens of at most
/// ``longest`` bytes are kept (one is dropped for each new one beyond), so a client sending
/// fresh tokens costs what it cost before and no more memory.
final class KeptTokens<Value: Sendable>: Sendable {
    /// The most tokens kept.
    static var capacity: Int { 1024 }
    /// The longest token kept, in bytes.
    static var longest: Int { 4096 }

    private let kept = Mutex<[SHA256Digest: Value]>([:])

    /// What was kept of `token`, if it was.
    func value(of token: String) -> Value? {
        guard token.utf8.count <= Self.longest else { return nil }
        let digest = SHA256.hash(data: Array(token.utf8))
        return kept.withLock { $0[digest] }
    }

    /// Keeps `value` for `token`, verified now.
    func keep(_ value: Value, of token: String) {
        guard token.utf8.count <= Self.longest else { return }
        let digest = SHA256.hash(data: Array(token.utf8))
        kept.withLock { tokens in
            if tokens.count >= Self.capacity, tokens[digest] == nil { tokens.remove(at: tokens.startIndex) }
            tokens[digest] = value
        }
    }

    /// How many tokens are kept.
    var count: Int { kept.withLock { $0.count } }
}
