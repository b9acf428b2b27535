import Crypto
import Foundation

/// Turns cursors into opaque, URL-safe, signed tokens and back.
///
/// A token is `base64url(payload) "." base64url(HMAC-SHA256(secret, payload))`. Any
/// change to either part, a truncation or another secret fails verification, so a
/// client cannot forge a position. Replicas that share the secret accept each other's
/// tokens, and tokens survive restarts.
public struct CursorSigner: Sendable {
    /// The longest token accepted; longer input is refused before any decoding.
    public static let maximumTokenLength = 4096

    private let key: SymmetricKey

    /// Creates a signer from a secret of at least 16 bytes.
    public init(secret: [UInt8]) {
        key = SymmetricKey(data: secret)
    }

    /// The signed token for a cursor.
    public func sign(_ cursor: Cursor) -> String {
        let payload = CursorPayload.encode(cursor)
        let mac = HMAC<SHA256>.authenticationCode(for: payload, using: key)
        return Base64URL.encode(payload) + "." + Base64URL.encode(Array(mac))
    }

    /// Verifies a token and checks that it belongs to `list` and `view`.
    ///
    /// - Throws: `badCursor` for an empty, malformed, altered or forged token, or one whose
    ///   position no longer fits the view; `cursorMismatch` for a genuine token of another
    ///   list or view.
    public func verify(_ token: String, list: String, view: View) throws(DataMediatorError) -> Cursor {
        let bad = DataMediatorError(
            .badCursor,
            "The cursor is not valid: pass the 'next' of a previous page unchanged, or omit 'cursor' to start again."
        )
        guard !token.isEmpty, token.utf8.count <= Self.maximumTokenLength else { throw bad }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2,
            let payload = Base64URL.decode(parts[0]),
            let mac = Base64URL.decode(parts[1]),
            HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: payload, using: key)
        else { throw bad }
        guard let cursor = CursorPayload.decode(payload) else { throw bad }
        guard cursor.list == list, cursor.view == view.name else {
            throw DataMediatorError(
                .cursorMismatch,
                "The cursor belongs to list '\(cursor.list)', view '\(cursor.view)', not to list '\(list)', view '\(view.name)'."
            )
        }
        guard cursor.position.values.count == view.sort.count else { throw bad }
        return cursor
    }
}
