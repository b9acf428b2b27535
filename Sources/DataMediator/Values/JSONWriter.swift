/// Writes JSON text straight into a byte buffer.
///
/// Answers are written once, in a fixed key order, so that equal content gives equal
/// bytes (and so equal ETags) without going through `JSONEncoder`.
public struct JSONWriter: Sendable {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8]

    /// Creates an empty writer that reserves `capacity` bytes.
    public init(capacity: Int = 1024) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// The bytes written so far, as a string.
    public var string: String { String(decoding: bytes, as: UTF8.self) }

    /// Appends raw JSON punctuation or a literal that needs no escaping.
    public mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Appends bytes that already are JSON text.
    public mutating func append(_ json: [UInt8]) {
        bytes.append(contentsOf: json)
    }

    /// Appends `text` as a JSON string, escaping quotes, backslashes and control characters.
    public mutating func write(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            // Runs that need no escaping (nearly all text) are copied whole.
            var runStart = 0
            for index in utf8.indices {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == 0x7F else {
                    continue
                }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                escape(byte)
                runStart = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func escape(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"):
            bytes.append(UInt8(ascii: "\\"))
            bytes.append(byte)
        case 0x0A:
            bytes.append(UInt8(ascii: "\\"))
            bytes.append(UInt8(ascii: "n"))
        case 0x0D:
            bytes.append(UInt8(ascii: "\\"))
            bytes.append(UInt8(ascii: "r"))
        case 0x09:
            bytes.append(UInt8(ascii: "\\"))
            bytes.append(UInt8(ascii: "t"))
        default:
            let hex: [UInt8] = Array("0123456789abcdef".utf8)
            bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
            bytes.append(hex[Int(byte >> 4)])
            bytes.append(hex[Int(byte & 0x0F)])
        }
    }

    /// Appends `text` as a JSON string, or `null` when it is nil.
    public mutating func write(_ text: String?) {
        if let text { write(text) } else { raw("null") }
    }

    /// Appends a whole number.
    public mutating func write(_ number: Int) {
        bytes.append(contentsOf: String(number).utf8)
    }

    /// Appends `true` or `false`.
    public mutating func write(_ flag: Bool) {
        if flag { raw("true") } else { raw("false") }
    }

    /// Appends an object key and its colon.
    public mutating func key(_ name: String) {
        write(name)
        bytes.append(UInt8(ascii: ":"))
    }

    /// Appends a comma unless `index` is the first element.
    public mutating func separator(_ index: Int) {
        if index > 0 { bytes.append(UInt8(ascii: ",")) }
    }

    /// Appends any JSON value; object keys are written in sorted order.
    ///
    /// A number that JSON cannot hold (infinity, NaN) is written as `null`.
    public mutating func write(_ value: JSONValue) {
        switch value {
        case .null: raw("null")
        case .bool(let flag): write(flag)
        case .integer(let whole): bytes.append(contentsOf: String(whole).utf8)
        case .number(let real):
            if real.isFinite { bytes.append(contentsOf: real.description.utf8) } else { raw("null") }
        case .string(let text): write(text)
        case .array(let elements):
            raw("[")
            for (index, element) in elements.enumerated() {
                separator(index)
                write(element)
            }
            raw("]")
        case .object(let members):
            raw("{")
            for (index, name) in members.keys.sorted().enumerated() {
                separator(index)
                key(name)
                write(members[name] ?? .null)
            }
            raw("}")
        }
    }

    /// Opens an answer about one view of a list: `{"list": ..., "view": ...`, to be
    /// continued with `,` and the answer's own members.
    public mutating func openAnswer(list: String, view: String) {
        raw("{\"list\":")
        write(list)
        raw(",\"view\":")
        write(view)
    }
}
