/// Base64 with the URL-safe alphabet and no padding (RFC 4648 §5).
///
/// Decoding accepts only the canonical spelling: the unused low bits of the last character
/// must be zero, so two different tokens never decode to the same bytes.
enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, character) in alphabet.enumerated() { table[Int(character)] = UInt8(index) }
        return table
    }()

    /// The number of characters `count` bytes encode to.
    static func encodedCount(_ count: Int) -> Int {
        (count * 4 + 2) / 3
    }

    /// Appends the base64url text of `bytes` to `output` (as ASCII bytes).
    static func append(_ bytes: UnsafeRawBufferPointer, to output: inout [UInt8]) {
        var index = 0
        while index + 3 <= bytes.count {
            let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            output.append(alphabet[Int(chunk >> 18 & 63)])
            output.append(alphabet[Int(chunk >> 12 & 63)])
            output.append(alphabet[Int(chunk >> 6 & 63)])
            output.append(alphabet[Int(chunk & 63)])
            index += 3
        }
        let rest = bytes.count - index
        if rest > 0 {
            let chunk = UInt32(bytes[index]) << 16 | (rest == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
            output.append(alphabet[Int(chunk >> 18 & 63)])
            output.append(alphabet[Int(chunk >> 12 & 63)])
            if rest == 2 { output.append(alphabet[Int(chunk >> 6 & 63)]) }
        }
    }

    /// The bytes of base64url text, or nil when it is not canonical base64url.
    static func decode(_ text: Substring) -> [UInt8]? {
        let input = text.utf8
        let count = input.count
        guard count > 0, count % 4 != 1 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(count * 3 / 4)
        var buffer: UInt32 = 0
        var bits = 0
        for character in input {
            let value = values[Int(character)]
            guard value != 0xFF else { return nil }
            buffer = buffer << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        // Leftover bits must be zero, or another spelling would decode to the same bytes.
        guard buffer & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
        return output
    }
}
