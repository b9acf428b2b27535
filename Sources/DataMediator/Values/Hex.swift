/// Lowercase hexadecimal text of bytes (digests, entity tags), and random ids made of it.
public enum Hex {
    /// `bytes` as two lowercase hex digits each.
    public static func string(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// 16 random bytes as 32 hex digits: the id of an item created without one.
    public static func randomID() -> String {
        var generator = SystemRandomNumberGenerator()
        return string((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }
}
