import Foundation

extension JSONValue {
    /// Whether JSON text holds a string that is no Unicode text: bytes that are not UTF-8,
    /// or an escape of half a UTF-16 surrogate pair (`"\ud800"` alone). RFC 8259 (8.1, 8.2)
    /// leaves such text unreadable as characters, where a number out of a 64-bit float's
    /// range is still JSON; the decoder refuses both alike, and this tells them apart.
    public static func holdsBadText(_ bytes: [UInt8]) -> Bool {
        guard String(validating: bytes, as: UTF8.self) != nil else { return true }
        var index = 0
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "\"") else {
                index += 1
                continue
            }
            var end = index + 1
            var escaped = false
            while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
                escaped = escaped || bytes[end] == UInt8(ascii: "\\")
                end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1
            }
            // An unterminated string is malformed text, which the decoder names as such.
            guard end < bytes.count else { return false }
            if escaped, (try? JSONDecoder().decode(String.self, from: Data(bytes[index...end]))) == nil {
                return true
            }
            index = end + 1
        }
        return false
    }
}
