extension JSONValue {
    /// The first member name that appears twice in one object of JSON text (as written,
    /// escapes and all), else nil. RFC 8259 leaves what such text means to the parser (the
    /// decoder keeps the first; most keep the last), so a body with one is refused rather
    /// than read differently from a proxy or validator in front. Malformed text is left to
    /// the decoder.
    public static func duplicateKey(in bytes: [UInt8]) -> String? {
        struct Level {
            let isObject: Bool
            var names: Set<ArraySlice<UInt8>> = []
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
                    let name = bytes[start..<min(end, bytes.count)]
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
}
