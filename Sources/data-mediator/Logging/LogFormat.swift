import DataMediator
import DataMediatorHTTP
import Logging

/// How a log record is written on its line.
enum LogFormat: Sendable {
    /// A line a human reads: time (UTC), level, logger, message, then the metadata as
    /// `key=value` in key order (logfmt: a value holding a blank, `=`, `"` or a control
    /// character is quoted, with `\"`, `\\`, `\n`, `\r`, `\t` and `\u00XX` escapes; a
    /// message's control characters are escaped so: a record is always one line).
    case text
    /// One JSON object, for log collectors: `time` (ISO 8601, UTC, milliseconds), `level`,
    /// `logger`, `message`, then the metadata as members in key order (nested metadata as
    /// objects and arrays; a ``DataMediatorHTTP/LoggedNumber`` as a number, every other
    /// value as text).
    case json

    /// One record as a line (ending in a newline); `milliseconds` since 1970 is its time and
    /// its metadata is given as fields already in key order (each key once), so a request's
    /// line is written without building a merged dictionary.
    func line(
        milliseconds: Int64,
        level: Logger.Level,
        label: String,
        message: String,
        sortedFields fields: [(key: String, value: Logger.MetadataValue)]
    ) -> [UInt8] {
        let time = UTCTimestamp.text(milliseconds: milliseconds, fraction: true)
        switch self {
        case .text:
            var bytes: [UInt8] = []
            bytes.reserveCapacity(160 + fields.count * 24)
            bytes.append(contentsOf: time.utf8)
            bytes.append(UInt8(ascii: " "))
            bytes.append(contentsOf: level.rawValue.utf8)
            bytes.append(UInt8(ascii: " "))
            bytes.append(contentsOf: label.utf8)
            bytes.append(contentsOf: ": ".utf8)
            Self.appendText(message, quoting: false, to: &bytes)
            for field in fields {
                bytes.append(UInt8(ascii: " "))
                bytes.append(contentsOf: field.key.utf8)
                bytes.append(UInt8(ascii: "="))
                if case .string(let text) = field.value {
                    Self.appendText(text, quoting: true, to: &bytes)
                } else {
                    Self.appendText(field.value.description, quoting: true, to: &bytes)
                }
            }
            bytes.append(UInt8(ascii: "\n"))
            return bytes
        case .json:
            var writer = JSONWriter(capacity: 160 + fields.count * 24)
            writer.raw("{\"time\":")
            writer.write(time)
            writer.raw(",\"level\":")
            writer.write(level.rawValue)
            writer.raw(",\"logger\":")
            writer.write(label)
            writer.raw(",\"message\":")
            writer.write(message)
            for field in fields where !Self.recordKeys.contains(field.key) {
                writer.raw(",")
                writer.key(field.key)
                Self.write(field.value, to: &writer)
            }
            writer.raw("}\n")
            return writer.bytes
        }
    }

    /// Appends `text` as a text line's message (`quoting` false: control characters
    /// escaped) or value (quoted when it must be, for logfmt readers).
    private static func appendText(_ text: String, quoting: Bool, to bytes: inout [UInt8]) {
        let utf8 = text.utf8
        let plain = utf8.allSatisfy {
            $0 >= 0x20 && $0 != 0x7F && (!quoting || ($0 != 0x20 && $0 != 0x3D && $0 != 0x22))
        }
        if plain, !(quoting && utf8.isEmpty) {
            bytes.append(contentsOf: utf8)
            return
        }
        if quoting { bytes.append(UInt8(ascii: "\"")) }
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "\"") where quoting: bytes.append(contentsOf: "\\\"".utf8)
            case UInt8(ascii: "\\") where quoting: bytes.append(contentsOf: "\\\\".utf8)
            case 0x0A: bytes.append(contentsOf: "\\n".utf8)
            case 0x0D: bytes.append(contentsOf: "\\r".utf8)
            case 0x09: bytes.append(contentsOf: "\\t".utf8)
            case ..<0x20, 0x7F:
                bytes.append(contentsOf: "\\u00".utf8)
                bytes.append(contentsOf: Hex.string([byte]).uppercased().utf8)
            default: bytes.append(byte)
            }
        }
        if quoting { bytes.append(UInt8(ascii: "\"")) }
    }

    /// The members every JSON line has; metadata of the same name is left out.
    private static let recordKeys: Set<String> = ["time", "level", "logger", "message"]

    private static func write(_ value: Logger.MetadataValue, to writer: inout JSONWriter) {
        switch value {
        case .string(let text):
            writer.write(text)
        case .stringConvertible(let number as LoggedNumber):
            writer.append(Array(number.description.utf8))
        case .stringConvertible(let convertible):
            writer.write(convertible.description)
        case .array(let values):
            writer.raw("[")
            for (index, element) in values.enumerated() {
                writer.separator(index)
                write(element, to: &writer)
            }
            writer.raw("]")
        case .dictionary(let members):
            writer.raw("{")
            for (index, key) in members.keys.sorted().enumerated() {
                writer.separator(index)
                writer.key(key)
                write(members[key] ?? "", to: &writer)
            }
            writer.raw("}")
        }
    }
}
