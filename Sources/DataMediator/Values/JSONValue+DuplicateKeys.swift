import Foundation

extension JSONValue {
    /// The first member name that appears twice in one object of JSON text (escapes read,
    /// so `"a"` and `"\u0061"` are one name; compared by bytes), else nil. RFC 8259 leaves what such text means to the parser (the
    /// decoder keeps the first; most keep the last), so a body with one is refused rather
    /// than read differently from a proxy or validator in front. Malformed text is left to
    /// the decoder.
    public static func duplicateKey(in bytes: [UInt8]) -> String? {
        struct Level {
            let isObject: Bool
            var names: Set<[UInt8]> = []
            var expectsName: Bool
        }
        var levels: [Level] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                let start = index + 1
                var end = start
                while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
                    end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1
                }
                if let last = levels.indices.last, levels[last].isObject, levels[last].expectsName {
                    let name = Self.unescaped(bytes[start..<min(end, bytes.count)])
                    if !levels[last].names.insert(name).inserted { return String(decoding: name, as: UTF8.self) }
                    levels[last].expectsName = false
                }
                index = end
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                // Deeper than a body may nest: the parser refuses it (``maximumDepth``).
                guard levels.count < maximumDepth else { return nil }
                levels.append(Level(isObject: byte == UInt8(ascii: "{"), expectsName: byte == UInt8(ascii: "{")))
            case UInt8(ascii: "}"), UInt8(ascii: "]"): _ = levels.popLast()
            case UInt8(ascii: ","):
                if let last = levels.indices.last, levels[last].isObject { levels[last].expectsName = true }
            default: break
            }
            index += 1
        }
        return nil
    }

    /// A string's bytes between its quotes with its escapes read; as written when they do
    /// not read (the decoder then refuses the text).
    private static func unescaped(_ raw: ArraySlice<UInt8>) -> [UInt8] {
        guard raw.contains(UInt8(ascii: "\\")) else { return Array(raw) }
        let quoted = [UInt8(ascii: "\"")] + raw + [UInt8(ascii: "\"")]
        guard let text = try? JSONDecoder().decode(String.self, from: Data(quoted)) else { return Array(raw) }
        return Array(text.utf8)
    }
}
