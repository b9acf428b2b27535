import Logging
import Synchronization

/// The log of the pools' own work, quiet below `warning` until the store has started.
///
/// While a store starts against a server it cannot use (a wrong password, a certificate
/// that does not check out), the pool retries the connection several times a second and
/// logs each failure as a raw line, until `prepare()` gives up and says why in one line of
/// its own. Once the store has started, the pool's lines pass as they are: a connection
/// lost later is worth each line.
struct PoolLogHandler: LogHandler {
    /// Whether the store has started, shared by the copies of the handler.
    final class Started: Sendable {
        private let value = Atomic(false)

        /// Marks the store started.
        func set() { value.store(true, ordering: .relaxed) }

        /// Whether the store has started.
        var isSet: Bool { value.load(ordering: .relaxed) }
    }

    /// The handler the lines go to.
    var upstream: any LogHandler
    /// Whether the store has started.
    let started: Started

    /// A logger like `logger` whose lines below `warning` wait for `started`.
    static func logger(like logger: Logger, started: Started) -> Logger {
        Logger(label: logger.label) { _ in PoolLogHandler(upstream: logger.handler, started: started) }
    }

    func log(event: LogEvent) {
        guard event.level >= .warning || started.isSet else { return }
        upstream.log(event: event)
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { upstream[metadataKey: key] }
        set { upstream[metadataKey: key] = newValue }
    }

    var metadata: Logger.Metadata {
        get { upstream.metadata }
        set { upstream.metadata = newValue }
    }

    var logLevel: Logger.Level {
        get { upstream.logLevel }
        set { upstream.logLevel = newValue }
    }

    var metadataProvider: Logger.MetadataProvider? {
        get { upstream.metadataProvider }
        set { upstream.metadataProvider = newValue }
    }
}
