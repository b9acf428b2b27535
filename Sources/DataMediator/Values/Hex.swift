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
