import DataMediator
import Logging

/// Writes each log record as one line of standard error, in a ``LogFormat``.
///
/// Every request sets a key or two on its logger and logs one line, so the logger's
/// metadata is kept as a short array sorted by key rather than a dictionary: copying it,
/// setting a key and merging it with a record's own metadata hash nothing and sort nothing.
/// Metadata is formatted when a record is written, not when it is set.
struct LineLogHandler: LogHandler {
    /// Hummingbird's own id for each request, which it sets on every request's logger. Lines
    /// leave it out: they carry `request_id`, the id the client sees in `X-Request-ID`.
    static let frameworkRequestIDKey = "hb.request.id"

    let label: String
    let format: LogFormat
    var logLevel: Logger.Level = .info
    /// The logger's metadata, sorted by key, each key once.
    private var fields: [LogFormat.Field] = []

    init(label: String, format: LogFormat) {
        self.label = label
        self.format = format
    }

    var metadata: Logger.Metadata {
        get { Logger.Metadata(fields.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 }) }
        set { fields = LogFormat.sorted(newValue) }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { fields.first { $0.key == key }?.value }
        set {
            let index = fields.firstIndex { $0.key >= key } ?? fields.endIndex
            let exists = index < fields.endIndex && fields[index].key == key
            switch (newValue, exists) {
            case (let value?, true): fields[index].value = value
            case (let value?, false): fields.insert(LogFormat.Field(key: key, value: value), at: index)
            case (nil, true): fields.remove(at: index)
            case (nil, false): break
            }
        }
    }

    func log(event: LogEvent) {
        LogOutput.standardError.write(line(for: event, milliseconds: UTCTimestamp.nowMilliseconds()))
    }

    /// The line `event` is written as: the logger's metadata and the event's own (which
    /// wins for a key both have), without Hummingbird's request id.
    func line(for event: LogEvent, milliseconds: Int64) -> [UInt8] {
        format.line(
            milliseconds: milliseconds,
            level: event.level,
            label: label,
            message: "\(event.message)",
            fields: Self.merged(fields, event.metadata.map(LogFormat.sorted) ?? [])
                .filter { $0.key != Self.frameworkRequestIDKey }
        )
    }

    /// Two sorted field lists as one, a key of `record` replacing the same key of `logger`.
    static func merged(_ logger: [LogFormat.Field], _ record: [LogFormat.Field]) -> [LogFormat.Field] {
        guard !record.isEmpty else { return logger }
        guard !logger.isEmpty else { return record }
        var merged: [LogFormat.Field] = []
        merged.reserveCapacity(logger.count + record.count)
        var left = logger[...]
        var right = record[...]
        while let l = left.first, let r = right.first {
            if l.key < r.key {
                merged.append(l)
                left.removeFirst()
            } else {
                if l.key == r.key { left.removeFirst() }
                merged.append(r)
                right.removeFirst()
            }
        }
        merged += left
        merged += right
        return merged
    }
}
