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
        var writer = JSONWriter(capacity: 128)
        writer.raw("{\"l\":")
        writer.write(cursor.list)
        writer.raw(",\"v\":")
        writer.write(cursor.view)
        writer.raw(",\"p\":[")
        for (index, value) in cursor.position.values.enumerated() {
            writer.separator(index)
            writer.write(Self.tag(value))
        }
        writer.raw("],\"i\":")
        writer.write(cursor.inclusive)
        writer.raw(",\"s\":")
        writer.write(cursor.continuing)
        writer.raw("}")
        let mac = HMAC<SHA256>.authenticationCode(for: writer.bytes, using: key)
        return Base64URL.encode(writer.bytes) + "." + Base64URL.encode(Array(mac))
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
        guard let decoded = try? JSONDecoder().decode(Payload.self, from: Data(payload)) else { throw bad }
        guard decoded.l == list, decoded.v == view.name else {
            throw DataMediatorError(
                .cursorMismatch,
                "The cursor belongs to list '\(decoded.l)', view '\(decoded.v)', not to list '\(list)', view '\(view.name)'."
            )
        }
        let values = decoded.p.map(Self.untag)
        guard values.count == view.sort.count, !values.contains(nil) else { throw bad }
        return Cursor(
            list: decoded.l,
            view: decoded.v,
            position: Position(values.compactMap { $0 }),
            inclusive: decoded.i,
            continuing: decoded.s
        )
    }

    private struct Payload: Decodable {
        let l: String
        let v: String
        let p: [String]
        let i: Bool
        let s: String?
    }

    /// Encodes a value with its kind, so an integer never comes back as a real.
    private static func tag(_ value: JSONValue) -> String {
        switch value {
        case .null: return "n"
        case .bool(let flag): return flag ? "b1" : "b0"
        case .integer(let whole): return "i" + String(whole)
        case .number(let real): return "r" + real.description
        case .string(let text): return "s" + text
        case .array, .object:
            var writer = JSONWriter()
            writer.write(value)
            return "j" + writer.string
        }
    }

    private static func untag(_ text: String) -> JSONValue? {
        guard let kind = text.first else { return nil }
        let rest = String(text.dropFirst())
        switch kind {
        case "n": return rest.isEmpty ? .null : nil
        case "b": return rest == "1" ? .bool(true) : rest == "0" ? .bool(false) : nil
        case "i": return Int64(rest).map(JSONValue.integer)
        case "r": return Double(rest).map(JSONValue.number)
        case "s": return .string(rest)
        case "j": return try? JSONDecoder().decode(JSONValue.self, from: Data(rest.utf8))
        default: return nil
        }
    }
}

/// Base64 with the URL-safe alphabet and no padding (RFC 4648 §5).
enum Base64URL {
    static func encode(_ bytes: [UInt8]) -> String {
        var text = Data(bytes).base64EncodedString()
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }

    static func decode(_ text: Substring) -> [UInt8]? {
        guard
            !text.isEmpty,
            text.utf8.allSatisfy({ byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            })
        else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        let remainder = standard.utf8.count % 4
        if remainder == 1 { return nil }
        if remainder > 0 { standard += String(repeating: "=", count: 4 - remainder) }
        guard let bytes = Data(base64Encoded: standard).map(Array.init) else { return nil }
        // Base64 ignores the unused low bits of the last character; accepting only the
        // canonical spelling means any changed character is refused.
        return encode(bytes) == text ? bytes : nil
    }
}
