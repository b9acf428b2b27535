import Logging

/// Sets up logging to standard error at `level` (default `info`) and returns the
/// service's logger.
func bootstrapLogging(level: String?) -> Logger {
    LoggingSystem.bootstrap(StreamLogHandler.standardError)
    var logger = Logger(label: "data-mediator")
    logger.logLevel = level.flatMap { Logger.Level(rawValue: $0.lowercased()) } ?? .info
    return logger
}
