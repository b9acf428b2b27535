import DataMediator
import Logging
import Synchronization

/// The log of one pool's own work (the primary's or the read replica's), each line naming
/// which (`database`), quiet below `warning` until the store has started.
///
/// While a store starts against a server it cannot use (a wrong password, a certificate
/// that does not check out), the pool retries the connection several times a second and
/// logs each failure as a raw line, until `prepare()` gives up and says why in one line of
/// its own. Once the store has started, a server that stays away is told of once each 10 s
/// (``ConnectAttempts``), with how many attempts failed and the last one's error; its
/// return is told by the store's ``PoolGate`` at the first call on a new connection.
struct PoolLogHandler: LogHandler {
    /// Whether the store has started, shared by the copies of the handler.
    final class Started: Sendable {
        private let value = Atomic(false)

        /// Marks the store started.
        func set() { value.store(true, ordering: .relaxed) }

        /// Whether the store has started.
        var isSet: Bool { value.load(ordering: .relaxed) }
    }

    /// One pool's failed connection attempts since it last connected, shared by the copies
    /// of its handler: the pool logs each one, several a second while its server is away.
    final class ConnectAttempts: Sendable {
        private let failures = LogThrottle()
        private let state = Mutex<(failed: Int, error: String?)>((0, nil))

        /// The last failed attempt's error while attempts fail, nil once one succeeded.
        var lastError: String? { state.withLock { $0.error } }

        /// Notes a failed attempt; answers how many to tell of now (nil: not yet).
        func failed(_ error: String?) -> Int? {
            state.withLock { $0 = ($0.failed + 1, error ?? $0.error) }
            return failures.count()
        }

        /// Notes a connection made; answers how many attempts had failed before it (0: none).
        func connected() -> Int {
            state.withLock { state in
                defer { state = (0, nil) }
                return state.failed
            }
        }
    }

    /// PostgresNIO 1.33.2's message for a connection attempt that failed
    /// (`PostgresClientMetrics`), which the handler counts.
    static let connectFailed = "Connection creation failed"

    /// The handler the lines go to.
    var upstream: any LogHandler
    /// Whether the store has started.
    let started: Started
    /// The pool's failed connection attempts.
    let attempts: ConnectAttempts

    /// A logger like `logger` for the pool of `database` ("primary" or "read replica"),
    /// whose lines below `warning` wait for `started`.
    static func logger(like logger: Logger, started: Started, database: String, attempts: ConnectAttempts) -> Logger {
        var pool = Logger(label: logger.label) { _ in
            PoolLogHandler(upstream: logger.handler, started: started, attempts: attempts)
        }
        pool[metadataKey: "database"] = .string(database)
        return pool
    }

    func log(event: LogEvent) {
        var event = event
        if event.message.description == Self.connectFailed {
            let error = event.metadata?["psql_error"].map { "\($0)" }
            guard let count = attempts.failed(error) else { return }
            event.metadata = (event.metadata ?? [:]).merging(["failed_attempts": "\(count)"]) { $1 }
        }
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
