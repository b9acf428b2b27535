import Logging

/// Writes each log record as one line a human reads on standard error: time (UTC),
/// level, logger, message, then the metadata as `key=value` in key order.
///
/// Metadata is formatted when a record is written, not when it is set: a request sets
/// its id on every request, and most requests log one line at most.
struct TextLogHandler: LogHandler {
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

    /// One record as a text line (ending in a newline).
    static func line(
        time: LogTime,
        level: Logger.Level,
        label: String,
        message: String,
        metadata: Logger.Metadata
    ) -> [UInt8] {
        var text = " \(level.rawValue) \(label): \(message)"
        for key in metadata.keys.sorted() {
            text += " \(key)=\(metadata[key] ?? "")"
        }
        text += "\n"
        return time.text + Array(text.utf8)
    }
}
