import DataMediator
import Logging

/// Writes each log record as one line of standard error, in a ``LogFormat``.
///
/// Metadata is formatted when a record is written, not when it is set: a request sets its
/// id on every request, and most requests log one line at most.
struct LineLogHandler: LogHandler {
    /// Hummingbird's own id for each request, which it sets on every request's logger. Lines
    /// leave it out: they carry `request_id`, the id the client sees in `X-Request-ID`.
    static let frameworkRequestIDKey = "hb.request.id"

    let label: String
    let format: LogFormat
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info

    init(label: String, format: LogFormat) {
        self.label = label
        self.format = format
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        LogOutput.standardError.write(line(for: event, milliseconds: UTCTimestamp.nowMilliseconds()))
    }

    /// The line `event` is written as: the logger's metadata and the event's own (which
    /// wins for a key both have), without Hummingbird's request id.
    func line(for event: LogEvent, milliseconds: Int64) -> [UInt8] {
        // Gathered into one array and sorted, not merged into a dictionary: a request's
        // line is written for every request.
        var fields: [(key: String, value: Logger.MetadataValue)] = []
        fields.reserveCapacity(metadata.count + (event.metadata?.count ?? 0))
        for (key, value) in metadata where key != Self.frameworkRequestIDKey && event.metadata?[key] == nil {
            fields.append((key, value))
        }
        for (key, value) in event.metadata ?? [:] where key != Self.frameworkRequestIDKey {
            fields.append((key, value))
        }
        fields.sort { $0.key < $1.key }
        return format.line(
            milliseconds: milliseconds,
            level: event.level,
            label: label,
            message: "\(event.message)",
            sortedFields: fields
        )
    }
}
