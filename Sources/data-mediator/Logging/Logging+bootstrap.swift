import Foundation
import Logging

/// Sets up logging to standard error at `level` (default `info`) and returns the
/// service's logger.
///
/// `format` is `text` (a line a human reads), `json` (one JSON object a line), or nil
/// for automatic: text on a terminal, JSON otherwise (a container's log collector).
func bootstrapLogging(level: String?, format: String?) -> Logger {
    let json = format.map { $0.lowercased() == "json" } ?? (isatty(STDERR_FILENO) == 0)
    if json {
        LoggingSystem.bootstrap { label in LineLogHandler(label: label, format: .json) }
    } else {
        LoggingSystem.bootstrap { label in LineLogHandler(label: label, format: .text) }
    }
    var logger = Logger(label: "data-mediator")
    logger.logLevel = level.flatMap { Logger.Level(rawValue: $0.lowercased()) } ?? .info
    return logger
}
