import DataMediator
import Foundation
import Logging
import Synchronization

/// Writes each log record as one JSON object on a line of standard error, for log
/// collectors: `time` (ISO 8601, UTC, milliseconds), `level`, `logger`, `message`, then
/// the metadata as members (nested metadata as objects and arrays).
struct JSONLogHandler: LogHandler {
    /// Serialises writes, so lines from concurrent tasks never interleave.
    private static let output = Mutex(())

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
        let line = Self.line(
            time: Date(),
            level: event.level,
            label: label,
            message: "\(event.message)",
            metadata: fields
        )
        Self.output.withLock { _ in
            FileHandle.standardError.write(Data(line))
        }
    }

    private static let timeFormat = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)

    /// One record as a JSON line (ending in a newline).
    static func line(
        time: Date,
        level: Logger.Level,
        label: String,
        message: String,
        metadata: Logger.Metadata
    ) -> [UInt8] {
        var members: [String: JSONValue] = [:]
        for (key, value) in metadata { members[key] = json(value) }
        members["time"] = .string(time.formatted(Self.timeFormat))
        members["level"] = .string(level.rawValue)
        members["logger"] = .string(label)
        members["message"] = .string(message)
        var writer = JSONWriter(capacity: 256)
        writer.write(.object(members))
        return writer.bytes + [UInt8(ascii: "\n")]
    }

    private static func json(_ value: Logger.MetadataValue) -> JSONValue {
        switch value {
        case .string(let text): return .string(text)
        case .stringConvertible(let convertible): return .string(convertible.description)
        case .array(let values): return .array(values.map(json))
        case .dictionary(let members): return .object(members.mapValues(json))
        }
    }
}
