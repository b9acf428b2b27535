/// The grammar of a `Host` field's value (RFC 9112 3.2: `uri-host [":" port]`, RFC 3986
/// 3.2.2-3.2.3), which a server must answer `400` when broken.
enum HostField {
    /// Whether `value` is a registered name or IPv4 address, or a bracketed IP literal,
    /// followed by an optional `:` and digits; empty (a target without authority) is one.
    static func isValid(_ value: String) -> Bool {
        var rest = Substring(value)
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { return false }
            let literal = rest[rest.index(after: rest.startIndex)..<close]
            guard !literal.isEmpty, literal.utf8.allSatisfy(isLiteralByte) else { return false }
            rest = rest[rest.index(after: close)...]
        } else {
            let end = rest.firstIndex(of: ":") ?? rest.endIndex
            guard rest[..<end].utf8.allSatisfy(isNameByte) else { return false }
            rest = rest[end...]
        }
        guard !rest.isEmpty else { return true }
        return rest.first == ":" && rest.dropFirst().utf8.allSatisfy { (0x30...0x39).contains($0) }
    }

    /// A byte of a registered name: unreserved, `%` of an escape, or a sub-delimiter.
    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default: nameBytes.contains(byte)
        }
    }

    /// A byte of an IP literal: hex digits, `:` and `.` (IPv6, with an IPv4 tail), and the
    /// letters and characters of an IPvFuture (`v1.x`).
    private static func isLiteralByte(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: ":") || isNameByte(byte)
    }

    private static let nameBytes = Set("-._~%!$&'()*+,;=".utf8)
}
