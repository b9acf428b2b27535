import DataMediator
import Logging

/// How a log record is written on its line.
enum LogFormat: Sendable {
    /// A line a human reads: time (UTC), level, logger, message, then the metadata as
    /// `key=value` in key order.
    case text
    /// One JSON object, for log collectors: `time` (ISO 8601, UTC, milliseconds), `level`,
    /// `logger`, `message`, then the metadata as members in key order (nested metadata as
    /// objects and arrays).
    case json

    /// One record as a line (ending in a newline); `milliseconds` since 1970 is its time.
    func line(
        milliseconds: Int64,
        level: Logger.Level,
        label: String,
        message: String,
        metadata: Logger.Metadata
    ) -> [UInt8] {
        let time = UTCTimestamp.text(milliseconds: milliseconds, fraction: true)
        switch self {
        case .text:
            var text = "\(time) \(level.rawValue) \(label): \(message)"
            for key in metadata.keys.sorted() {
                text += " \(key)=\(metadata[key] ?? "")"
            }
            return Array((text + "\n").utf8)
        case .json:
            var writer = JSONWriter(capacity: 256)
            writer.raw("{\"time\":")
            writer.write(time)
            writer.raw(",\"level\":")
            writer.write(level.rawValue)
            writer.raw(",\"logger\":")
            writer.write(label)
            writer.raw(",\"message\":")
            writer.write(message)
            for key in metadata.keys.sorted() where !["time", "level", "logger", "message"].contains(key) {
                writer.raw(",")
                writer.key(key)
                Self.write(metadata[key] ?? "", to: &writer)
            }
            writer.raw("}\n")
            return writer.bytes
        }
    }

    private static func write(_ value: Logger.MetadataValue, to writer: inout JSONWriter) {
        switch value {
        case .string(let text):
            writer.write(text)
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
