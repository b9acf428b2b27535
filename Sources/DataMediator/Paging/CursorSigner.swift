import Crypto
import Foundation

/// Turns cursors into opaque, URL-safe, signed tokens and back.
///
/// A token is `base64url(payload) "." base64url(HMAC-SHA256(secret, payload))`. Any
/// change to either part, a truncation or another secret fails verification, so a
/// client cannot forge a position. Replicas that share the secret accept each other's
/// tokens, and tokens survive restarts.
public struct CursorSigner: Sendable {
    /// The longest token accepted; longer input is refused before any decoding. A token
    /// carries its position's sort keys, long ones abridged (``AbridgedKey``), and its id
    /// whole, which writes keep short (``FieldRules/maximumKeyBytes``); a URL with a token
    /// this long still fits the server's default 16 KiB request head.
    public static let maximumTokenLength = 12_288

    /// A secret's two HMACs, its key's blocks hashed once, not per token: the one that signs
    /// tokens, and the one that keys a slice's digest in a token (``sealed(_:_:)``), with a
    /// key of its own drawn from the secret, so its codes are never a cursor's.
    private struct Keys: Sendable {
        let keyed: HMAC<SHA256>
        let sliceKeyed: HMAC<SHA256>

        init(_ secret: [UInt8]) {
            let key = SymmetricKey(data: secret)
            keyed = HMAC<SHA256>(key: key)
            let sliceKey = HMAC<SHA256>.authenticationCode(for: Array("data-mediator slice digest".utf8), using: key)
            sliceKeyed = HMAC<SHA256>(key: SymmetricKey(data: sliceKey))
        }
    }

    /// The secret tokens are signed with.
    private let current: Keys
    /// Secrets whose tokens are still taken (a rotation's former ones), tried in order
    /// after ``current``.
    private let previous: [Keys]

    /// Creates a signer from a secret of at least 16 bytes; tokens signed with one of
    /// `previous` (the secrets a rotation replaced) are still verified, so that a rotation
    /// does not end every cursor clients hold at once.
    public init(secret: [UInt8], previous: [[UInt8]] = []) {
        current = Keys(secret)
        self.previous = previous.filter { $0 != secret }.map(Keys.init)
    }

    /// The signed token for a cursor, its text keys over ``AbridgedKey/maximumBytes``
    /// abridged; `neighbor` gives the position of the item beside its item on the side its
    /// page showed, which the abridged keys are told apart from (``AbridgedKey/abridge(_:beside:)``).
    public func sign(_ whole: Cursor, beside neighbor: () -> Position? = { nil }) -> String {
        // Long text keys go in abridged: a token stays short whatever the keys hold.
        let cursor = AbridgedKey.abridge(whole, beside: neighbor)
        let sealedView = sealed(cursor.view, current)
        let payload = CursorPayload.encode(
            sealedView == cursor.view ? cursor : cursor.bound(to: sealedView)
        )
        let mac = code(for: payload, current)
        // One buffer for the whole token, turned into a String once.
        var token: [UInt8] = []
        token.reserveCapacity(Base64URL.encodedCount(payload.count) + 1 + Base64URL.encodedCount(SHA256.byteCount))
        payload.withUnsafeBytes { Base64URL.append($0, to: &token) }
        token.append(UInt8(ascii: "."))
        mac.withUnsafeBytes { Base64URL.append($0, to: &token) }
        return String(decoding: token, as: UTF8.self)
    }

    /// The HMAC-SHA256 of `payload` under a secret.
    private func code(for payload: [UInt8], _ keys: Keys) -> HMAC<SHA256>.MAC {
        var hmac = keys.keyed
        hmac.update(data: payload)
        return hmac.finalize()
    }

    /// `binding` (a view's, `name#slice@shape`) with its slice's digest keyed by the secret.
    ///
    /// A slice's digest is a plain hash of its values, as the change log keys slices by it;
    /// in a token, which a client may show to others (a shared link, a log), a scope's
    /// value (a user's id) could be found from it by hashing likely ones. A token's payload
    /// is signed, not hidden, so the token carries the keyed form, which only the holders
    /// of the secret can compute.
    private func sealed(_ binding: String, _ keys: Keys) -> String {
        guard let hash = binding.utf8.firstIndex(of: UInt8(ascii: "#")) else { return binding }
        let start = binding.utf8.index(after: hash)
        let end = binding.utf8[start...].firstIndex(of: UInt8(ascii: "@")) ?? binding.utf8.endIndex
        var hmac = keys.sliceKeyed
        hmac.update(data: Array(binding.utf8[start..<end]))
        let code = Array(hmac.finalize()).prefix(12)
        return String(binding[..<start]) + Hex.string(Array(code)) + String(binding[end...])
    }

    /// The view's name in a cursor's binding (without its slice's and shape's digests).
    private static func viewName(_ binding: String) -> String {
        String(binding.prefix { $0 != "#" && $0 != "@" })
    }

    /// The view's binding in a cursor's (without its shape's digest).
    private static func binding(_ cursorBinding: String) -> String {
        String(cursorBinding.prefix { $0 != "@" })
    }

    /// Verifies a token and checks that it belongs to `list` and `view` (and its slice).
    ///
    /// - Throws: `badCursor` for an empty, malformed, altered or forged token, or one whose
    ///   position no longer fits the view; `cursorMismatch` for a genuine token of another
    ///   list, view or slice.
    public func verify(_ token: String, list: String, view: View) throws(DataMediatorError) -> Cursor {
        let bad = DataMediatorError(
            .badCursor,
            "The cursor is not valid (changed, cut short, or signed with a secret this server does not hold): "
                + "pass the 'next' of a previous page unchanged, or omit 'cursor' to start again."
        )
        // A token carries long keys abridged, but an id whole: a row another program wrote
        // may hold an id longer than writes allow, and the cursor after it be longer than
        // any this server takes back: say so.
        guard token.utf8.count <= Self.maximumTokenLength else {
            throw DataMediatorError(
                .badCursor,
                "The cursor is \(token.utf8.count) characters long, more than the \(Self.maximumTokenLength) this "
                    + "server takes: an item's id is longer than writes allow (a row written by another program; "
                    + "keep ids within \(FieldRules.maximumKeyBytes) bytes), or it is not a cursor of this server. "
                    + "Omit 'cursor' to start again."
            )
        }
        guard !token.isEmpty,
            // Searched as bytes, not characters: a token is ASCII, and a character walk costs more.
            let dot = token.utf8.firstIndex(of: UInt8(ascii: ".")),
            let payload = Base64URL.decode(token[..<dot]),
            let mac = Base64URL.decode(token[token.utf8.index(after: dot)...]),
            // Constant-time comparison (swift-crypto's == on a MAC).
            let keys = code(for: payload, current) == mac
                ? current : previous.first(where: { code(for: payload, $0) == mac })
        else { throw bad }
        guard let cursor = CursorPayload.decode(payload) else { throw bad }
        // Tokens of earlier releases carry the slice's digest as it is.
        // No set on every page's path: most views' two bindings are one.
        let bindings =
            view.typedCursorBinding == view.cursorBinding
            ? [view.cursorBinding] : [view.typedCursorBinding, view.cursorBinding]
        guard cursor.list == list, bindings.contains(where: { [sealed($0, keys), $0].contains(cursor.view) }) else {
            if cursor.list == list, [sealed(view.binding, keys), view.binding].contains(Self.binding(cursor.view)) {
                throw DataMediatorError(
                    .cursorMismatch,
                    "The cursor was issued for another definition of view '\(view.name)' (its order, its sort "
                        + "keys' types, sections or filter have changed since, or a replica still serves the other "
                        + "one): omit 'cursor' to start again."
                )
            }
            if cursor.list == list, Self.viewName(cursor.view) == view.name {
                throw DataMediatorError(
                    .cursorMismatch,
                    "The cursor belongs to another slice of list '\(list)', view '\(view.name)' (other "
                        + "parameters, or another caller's token): omit 'cursor' to start again."
                )
            }
            let slice = view.slice.isEmpty ? "" : " (or to another slice of it)"
            throw DataMediatorError(
                .cursorMismatch,
                "The cursor belongs to list '\(cursor.list)', view '\(Self.viewName(cursor.view))'\(slice), "
                    + "not to list '\(list)', view '\(view.name)' with these parameters: omit 'cursor' to start again."
            )
        }
        // No stored value holds U+0000 (see `String.holdsNUL`): a position holding one is
        // none a page showed, and PostgreSQL refuses the text outright.
        guard cursor.position.values.count == view.sort.count, !cursor.position.values.contains(where: \.holdsNUL)
        else { throw bad }
        return cursor.bound(to: view.typedCursorBinding)
    }
}
