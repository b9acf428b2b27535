import DataMediator
import Logging

/// Writes each log record as one JSON object on a line of standard error, for log
/// collectors: `time` (ISO 8601, UTC, milliseconds), `level`, `logger`, `message`, then
/// the metadata as members in key order (nested metadata as objects and arrays).
struct JSONLogHandler: LogHandler {
    let label: String
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info

    init(label: String) {
        self.label = label
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var fields = metadata
        if let extra = event.metadata { fields.merge(extra) { $1 } }
        LogOutput.standardError.write(
            Self.line(
                time: LogTime.now(),
                level: event.level,
                label: label,
                message: "\(event.message)",
                metadata: fields
            )
        )
    }

    /// One record as a JSON line (ending in a newline).
    static func line(
        time: LogTime,
        level: Logger.Level,
        label: String,
        message: String,
        metadata: Logger.Metadata
    ) -> [UInt8] {
        var writer = JSONWriter(capacity: 256)
        writer.raw("{\"time\":\"")
        writer.append(time.text)
        writer.raw("\",\"level\":")
        writer.write(level.rawValue)
        writer.raw(",\"logger\":")
        writer.write(label)
        writer.raw(",\"message\":")
        writer.write(message)
        for key in metadata.keys.sorted() where !["time", "level", "logger", "message"].contains(key) {
            writer.raw(",")
            writer.key(key)
            write(metadata[key] ?? "", to: &writer)
        }
        writer.raw("}\n")
        return writer.bytes
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
