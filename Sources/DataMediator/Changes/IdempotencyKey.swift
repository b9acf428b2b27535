import Crypto

/// A client's `Idempotency-Key` for a create, with who sent it and a fingerprint of the
/// request it came with: the same caller, key and fingerprint replay the first answer, the
/// same caller and key with another fingerprint are refused. Keys of different callers
/// never meet, so one caller's key never replays (or reveals) another caller's write.
public struct IdempotencyKey: Sendable, Hashable {
    /// The key as the client sent it.
    public let key: String
    /// Who sent it: the slice it writes and the credential it wrote with (see
    /// ``ListAdapter/create(body:idempotencyKey:caller:scope:)``); empty for anyone.
    public let caller: String
    /// A digest of the request body (of its JSON, so spacing and member order do not count).
    public let fingerprint: String

    /// How long a key is kept, at least: 24 hours.
    public static let retention: Duration = .seconds(24 * 60 * 60)

    /// Creates an idempotency key.
    public init(key: String, caller: String = "", fingerprint: String) {
        self.key = key
        self.caller = caller
        self.fingerprint = fingerprint
    }

    /// The key as stores keep it: the caller, a line break and the key (a key is visible
    /// ASCII, no line break, so the last line break tells the two apart); when that is
    /// longer than ``longestStoredKey`` bytes (a JWT's long `iss` or slice value), its
    /// SHA-256 instead, so that a store's index holds it: PostgreSQL's refused it, and
    /// every keyed create of such a caller was `422` (review 104 F2). A digest has no line
    /// break, so it never equals a joined key.
    public var storedKey: String {
        guard joinedKey.utf8.count > Self.longestStoredKey else { return joinedKey }
        return "sha256:" + Hex.string(Array(SHA256.hash(data: Array(joinedKey.utf8))))
    }

    /// The caller, a line break and the key: how releases before 2026-12-08 kept every key,
    /// which a store looks up too while one of theirs may be in its retention (a retry
    /// across the upgrade replays, review 108 #1).
    public var joinedKey: String { caller.isEmpty ? key : caller + "\n" + key }

    /// The longest key a store keeps as it is, in bytes (a PostgreSQL index entry holds
    /// about 2,700).
    public static let longestStoredKey = 512
}
