import DataMediator
import Logging

/// Writes each log record as one line of standard error, in a ``LogFormat``.
///
/// Metadata is formatted when a record is written, not when it is set: a request sets its
/// id on every request, and most requests log one line at most.
struct LineLogHandler: LogHandler {
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
        var fields = metadata
        if let extra = event.metadata { fields.merge(extra) { $1 } }
        LogOutput.standardError.write(
            format.line(
                milliseconds: UTCTimestamp.nowMilliseconds(),
                level: event.level,
                label: label,
                message: "\(event.message)",
                metadata: fields
            )
        )
    }
}
