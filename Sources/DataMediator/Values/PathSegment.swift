/// Percent-encoding of one URL path segment or query value (RFC 3986 unreserved kept).
public enum PathSegment {
    /// `text` with every byte outside `A-Z a-z 0-9 - . _ ~` percent-encoded.
    public static func encode(_ text: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 8)
        append(text, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `text` percent-encoded as ``encode(_:)`` does, to bytes being written.
    public static func append(_ text: String, to bytes: inout [UInt8]) {
        for byte in text.utf8 {
            let unreserved =
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
                || byte == UInt8(ascii: "~")
            if unreserved {
                bytes.append(byte)
            } else {
                bytes.append(UInt8(ascii: "%"))
                bytes.append(upperHex[Int(byte >> 4)])
                bytes.append(upperHex[Int(byte & 0x0F)])
            }
        }
    }

    private static let upperHex: [UInt8] = Array("0123456789ABCDEF".utf8)

    /// Whether `text` is `.` or `..`, a dot segment: URLs resolve it away (RFC 3986 5.2.4,
    /// even written as `%2E`), so no path names it, and no item or list may be called so.
    public static func isDotSegment(_ text: String) -> Bool {
        text == "." || text == ".."
    }

    /// `text` with each `%XX` replaced by its byte; nil when a `%` is not followed by two
    /// hex digits or the bytes are not UTF-8.
    public static func decode(_ text: String) -> String? {
        guard text.utf8.contains(UInt8(ascii: "%")) else { return text }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return digit - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
