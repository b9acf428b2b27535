/// A client's `Idempotency-Key` for a create, with a fingerprint of the request it came with:
/// the same key and fingerprint replay the first answer, the same key with another
/// fingerprint is refused.
public struct IdempotencyKey: Sendable, Hashable {
    /// The key as the client sent it.
    public let key: String
    /// A digest of the request body (of its JSON, so spacing and member order do not count).
    public let fingerprint: String

    /// How long a key is kept, at least: 24 hours.
    public static let retention: Duration = .seconds(24 * 60 * 60)

    /// Creates an idempotency key.
    public init(key: String, fingerprint: String) {
        self.key = key
        self.fingerprint = fingerprint
    }
}
