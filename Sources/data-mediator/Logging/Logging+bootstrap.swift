import Foundation
import Logging

/// Sets up logging to standard error at `level` (default `info`) and returns the
/// service's logger.
///
/// `format` is `text` (a line a human reads), `json` (one JSON object a line), or nil
/// for automatic: text on a terminal, JSON otherwise (a container's log collector).
func bootstrapLogging(level: String?, format: String?) -> Logger {
    let chosen = LogFormat.named(format)
    LoggingSystem.bootstrap { label in LineLogHandler(label: label, format: chosen) }
    // What was logged last before the process exits is written first (for at most 2 s).
    atexit { LogOutput.standardError.flush() }
    // A reader of standard error that went away (a log collector restarted) makes a log
    // write fail with EPIPE, its line dropped and counted, not the process killed.
    signal(SIGPIPE, SIG_IGN)
    var logger = Logger(label: logLabel)
    logger.logLevel = level.flatMap { Logger.Level(rawValue: $0.lowercased()) } ?? .info
    return logger
}

/// The label of the service's own log records.
let logLabel = "data-mediator"

extension LogFormat {
    /// The format `name` says (`json` in any case; anything else is text), or for nil or
    /// empty (a variable set empty counts as unset) text on a terminal and JSON otherwise
    /// (a container's log collector).
    static func named(_ name: String?) -> LogFormat {
        guard let name, !name.isEmpty else { return isatty(STDERR_FILENO) == 0 ? .json : .text }
        return name.lowercased() == "json" ? .json : .text
    }
}
