/// The bytes a cursor token signs: a compact binary form of a ``Cursor``.
///
/// Layout: a format byte (1); a flags byte (bit 0 inclusive, bit 2 backward, bit 4 a
/// version follows); the list and the view, each as a length-prefixed UTF-8 string; the
/// number of position values and each value as a kind byte and its data; the version of
/// the page the cursor came from, when bit 4 says so. Lengths and the version are LEB128
/// varints; integers are zigzag varints; reals their IEEE 754 bits.
///
/// A text key a token carries abridged (``AbridgedKey``) is kind 7: its first bytes as a
/// string, then the digest of the whole (``AbridgedKey/digestBytes`` bytes).
///
/// An array (a composite's position) is kind 6, its JSON text, unless it holds a double
/// JSON cannot write: kind 8, its elements as kinds of their own.
///
/// Cursors issued before pages read their surroundings live also held the section the
/// page continued (bit 1, a string after the view) and whether it started the view (bit
/// 3); they still decode, and those parts are skipped: cursors stay valid across
/// versions of the service as across restarts.
enum CursorPayload {
    private static let format: UInt8 = 1

    private enum Kind: UInt8 {
        case null = 0
        case `false`
        case `true`
        case integer
        case real
        case string
        case json
        case abridged
        /// An array holding a double that JSON cannot write (±infinity, NaN: a composite's
        /// position in a child that sorts by such a number), as its count and each element
        /// as a kind and its data. Others stay `json`, as earlier releases wrote them.
        case array
    }

    /// The payload of a cursor.
    static func encode(_ cursor: Cursor) -> [UInt8] {
        var bytes: [UInt8] = [
            format,
            (cursor.inclusive ? 1 : 0) | (cursor.backward ? 4 : 0) | (cursor.version != nil ? 16 : 0),
        ]
        bytes.reserveCapacity(64)
        appendString(cursor.list, to: &bytes)
        appendString(cursor.view, to: &bytes)
        appendVarint(UInt64(cursor.position.values.count), to: &bytes)
        for (index, value) in cursor.position.values.enumerated() {
            if let digest = cursor.abridged[index], case .string(let prefix) = value {
                bytes.append(Kind.abridged.rawValue)
                appendString(prefix, to: &bytes)
                bytes.append(contentsOf: digest)
                continue
            }
            appendValue(value, to: &bytes)
        }
        if let version = cursor.version { appendVarint(UInt64(bitPattern: version), to: &bytes) }
        return bytes
    }

    /// The cursor a payload holds, or nil when the bytes are not a payload of this format.
    static func decode(_ bytes: [UInt8]) -> Cursor? {
        var reader = Reader(bytes: bytes)
        guard reader.byte() == format, let flags = reader.byte(), flags & ~31 == 0,
            let list = reader.string(), let view = reader.string()
        else { return nil }
        // An earlier cursor's continued section (bit 1) is read past.
        if flags & 2 != 0, reader.string() == nil { return nil }
        guard let count = reader.varint(), count <= 64 else { return nil }
        var values: [JSONValue] = []
        var abridged: [Int: [UInt8]] = [:]
        for index in 0..<Int(count) {
            guard let raw = reader.byte(), let kind = Kind(rawValue: raw) else { return nil }
            if kind == .abridged {
                guard let prefix = reader.string(), let digest = reader.take(AbridgedKey.digestBytes) else {
                    return nil
                }
                values.append(.string(prefix))
                abridged[index] = digest
                continue
            }
            guard let value = readValue(kind, &reader) else { return nil }
            values.append(value)
        }
        var version: Int64?
        if flags & 16 != 0 {
            guard let raw = reader.varint(), raw <= UInt64(Int64.max) else { return nil }
            version = Int64(raw)
        }
        guard reader.isAtEnd else { return nil }
        return Cursor(
            list: list,
            view: view,
            position: Position(values),
            inclusive: flags & 1 != 0,
            backward: flags & 4 != 0,
            version: version,
            abridged: abridged
        )
    }

    /// Appends `value` as its kind and data.
    private static func appendValue(_ value: JSONValue, to bytes: inout [UInt8]) {
        switch value {
        case .null: bytes.append(Kind.null.rawValue)
        case .bool(let flag): bytes.append(flag ? Kind.true.rawValue : Kind.false.rawValue)
        case .integer(let whole):
            bytes.append(Kind.integer.rawValue)
            appendVarint(UInt64(bitPattern: (whole << 1) ^ (whole >> 63)), to: &bytes)
        case .number(let real):
            bytes.append(Kind.real.rawValue)
            appendVarint(real.bitPattern, to: &bytes)
        case .string(let text):
            bytes.append(Kind.string.rawValue)
            appendString(text, to: &bytes)
        case .array(let elements) where holdsNonFinite(value):
            // JSON would write the double as null: a composite's cursor after it started
            // its child again there, and its pages came round for ever (review 107 #1).
            bytes.append(Kind.array.rawValue)
            appendVarint(UInt64(elements.count), to: &bytes)
            for element in elements { appendValue(element, to: &bytes) }
        case .array, .object:
            bytes.append(Kind.json.rawValue)
            var writer = JSONWriter()
            writer.write(value)
            appendString(writer.string, to: &bytes)
        }
    }

    /// Whether `value` holds a double JSON cannot write, in arrays all the way down.
    private static func holdsNonFinite(_ value: JSONValue) -> Bool {
        switch value {
        case .number(let real): return !real.isFinite
        case .array(let elements): return elements.contains(where: holdsNonFinite)
        default: return false
        }
    }

    /// The value of `kind` that `reader` reads next; nil when the bytes are not one, or
    /// arrays nest deeper than `depth` more.
    private static func readValue(_ kind: Kind, _ reader: inout Reader, depth: Int = 8) -> JSONValue? {
        switch kind {
        case .null: return .null
        case .false: return .bool(false)
        case .true: return .bool(true)
        case .integer:
            guard let zigzag = reader.varint() else { return nil }
            return .integer(Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1))
        case .real:
            guard let bits = reader.varint() else { return nil }
            return .number(Double(bitPattern: bits))
        case .string:
            return reader.string().map(JSONValue.string)
        case .json:
            guard let text = reader.string() else { return nil }
            return try? JSONValue.parse(Array(text.utf8))
        case .abridged:
            // Only a position's own values are abridged.
            return nil
        case .array:
            guard depth > 0, let count = reader.varint(), count <= 64 else { return nil }
            var elements: [JSONValue] = []
            for _ in 0..<count {
                guard let raw = reader.byte(), let kind = Kind(rawValue: raw),
                    let element = readValue(kind, &reader, depth: depth - 1)
                else { return nil }
                elements.append(element)
            }
            return .array(elements)
        }
    }

    private static func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    private static func appendString(_ text: String, to bytes: inout [UInt8]) {
        appendVarint(UInt64(text.utf8.count), to: &bytes)
        bytes.append(contentsOf: text.utf8)
    }

    /// Reads a payload front to back; every read is bounds-checked and nil past the end.
    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        var isAtEnd: Bool { offset == bytes.count }

        mutating func byte() -> UInt8? {
            guard offset < bytes.count else { return nil }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func varint() -> UInt64? {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while let byte = byte() {
                guard shift < 64 else { return nil }
                value |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return value }
                shift += 7
            }
            return nil
        }

        mutating func take(_ count: Int) -> [UInt8]? {
            guard count <= bytes.count - offset else { return nil }
            defer { offset += count }
            return Array(bytes[offset..<offset + count])
        }

        mutating func string() -> String? {
            guard let length = varint(), length <= UInt64(bytes.count - offset) else { return nil }
            let end = offset + Int(length)
            defer { offset = end }
            return String(validating: bytes[offset..<end], as: UTF8.self)
        }
    }
}
