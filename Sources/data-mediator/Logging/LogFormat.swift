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

    /// One metadata key and its value.
    struct Field {
        /// The key.
        var key: String
        /// The value.
        var value: Logger.MetadataValue
    }

    /// `metadata` as fields sorted by key.
    static func sorted(_ metadata: Logger.Metadata) -> [Field] {
        metadata.map { Field(key: $0.key, value: $0.value) }.sorted { $0.key < $1.key }
    }

    /// One record as a line (ending in a newline); `milliseconds` since 1970 is its time.
    func line(
        milliseconds: Int64,
        level: Logger.Level,
        label: String,
        message: String,
        metadata: Logger.Metadata
    ) -> [UInt8] {
        line(milliseconds: milliseconds, level: level, label: label, message: message, fields: Self.sorted(metadata))
    }

    /// One record as a line (ending in a newline), its metadata `fields` sorted by key.
    func line(
        milliseconds: Int64,
        level: Logger.Level,
        label: String,
        message: String,
        fields: [Field]
    ) -> [UInt8] {
        let time = UTCTimestamp.text(milliseconds: milliseconds, fraction: true)
        switch self {
        case .text:
            var text = "\(time) \(level.rawValue) \(label): \(message)"
            for field in fields {
                text += " \(field.key)=\(field.value)"
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
            for field in fields where !Self.recordKeys.contains(field.key) {
                writer.raw(",")
                writer.key(field.key)
                Self.write(field.value, to: &writer)
            }
            writer.raw("}\n")
            return writer.bytes
        }
    }

    /// The members every JSON line has of its own, which metadata cannot replace.
    private static let recordKeys = ["time", "level", "logger", "message"]

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
