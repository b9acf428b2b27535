/// Lowercase hexadecimal text of bytes (digests, entity tags), and random ids made of it.
public enum Hex {
    /// `bytes` as two lowercase hex digits each.
    public static func string(_ bytes: some Sequence<UInt8>) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// `bytes` as two lowercase hex digits each (without generic iteration: for hot paths
    /// such as entity tags).
    public static func string(_ bytes: UnsafeRawBufferPointer) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { text in
            for (index, byte) in bytes.enumerated() {
                text[2 * index] = digits[Int(byte >> 4)]
                text[2 * index + 1] = digits[Int(byte & 0x0F)]
            }
            return bytes.count * 2
        }
    }

    private static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    /// The bytes that `text`, lowercase hex digits two a byte (as `string` writes
    /// them), stands for; nil for other text.
    public static func bytes(_ text: String) -> [UInt8]? {
        let hex = Array(text.utf8)
        guard hex.count.isMultiple(of: 2) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(hex.count / 2)
        for index in stride(from: 0, to: hex.count, by: 2) {
            guard let high = digits.firstIndex(of: hex[index]), let low = digits.firstIndex(of: hex[index + 1]) else {
                return nil
            }
            bytes.append(UInt8(high << 4 | low))
        }
        return bytes
    }

    /// 16 random bytes as 32 hex digits: the id of an item created without one.
    public static func randomID() -> String {
        var generator = SystemRandomNumberGenerator()
        return id(generator.next(), generator.next())
    }

    /// Two 64-bit numbers as 32 hex digits, the first one first.
    public static func id(_ high: UInt64, _ low: UInt64) -> String {
        withUnsafeBytes(of: (high.bigEndian, low.bigEndian)) { string($0) }
    }
}
