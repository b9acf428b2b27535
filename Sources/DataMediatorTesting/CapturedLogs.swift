import Logging
import Synchronization

/// Log records kept in memory, to check what a request or a store logged.
public final class CapturedLogs: Sendable {
    /// Each record: its level, its message, and its metadata merged with the logger's.
    public let lines = Mutex<[(level: Logger.Level, message: String, metadata: Logger.Metadata)]>([])

    /// An empty record.
    public init() {}

    /// The records so far.
    public var records: [(level: Logger.Level, message: String, metadata: Logger.Metadata)] {
        lines.withLock { $0 }
    }

    /// A logger, at `trace`, whose records are kept here.
    public var logger: Logger {
        Logger(label: "test") { _ in Handler(logs: self) }
    }

    /// The handler that keeps the records.
    struct Handler: LogHandler {
        let logs: CapturedLogs
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }
            logs.lines.withLock { $0.append((event.level, "\(event.message)", merged)) }
        }
    }
}
