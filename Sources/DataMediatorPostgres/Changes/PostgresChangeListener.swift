import DataMediator
import DataMediatorSQL
import Logging
import PostgresNIO
import ServiceLifecycle

/// Wakes this replica's live streams when any replica writes: listens on the store's
/// channel (`LISTEN`), where every write notifies on commit, and publishes each
/// notification to the notifier.
///
/// The change log stays the source of truth: a stream woken reads the log from its last
/// version, so a notification lost while the connection was down costs nothing but time.
/// Each time the listener (re)connects it publishes once, so streams catch up on what was
/// written while it was not listening.
public struct PostgresChangeListener: Service {
    private let store: PostgresStore
    private let notifier: ChangeNotifier
    private let logger: Logger
    /// How long to wait before listening again after the connection was lost.
    private let retryDelay: Duration

    /// Creates a listener for `store`'s writes that wakes `notifier`'s streams.
    public init(store: PostgresStore, notifier: ChangeNotifier, logger: Logger, retryDelay: Duration = .seconds(1)) {
        self.store = store
        self.notifier = notifier
        self.logger = logger
        self.retryDelay = retryDelay
    }

    /// Listens until the service group shuts down, listening again after each loss of the
    /// connection.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await store.primaryGate.withConnection { connection in
                        try await connection.listen(on: ServiceTables.channel) { notifications in
                            notifier.publish()
                            // Each notification's payload is the version its write made.
                            for try await notification in notifications {
                                let version = Int64(notification.payload)
                                if let version { store.primaryReached(version) }
                                notifier.publish(version: version)
                            }
                        }
                    }
                } catch {
                    if Task.isCancelled { break }
                    logger.warning(
                        "lost the change notifications; listening again",
                        metadata: ["error": "\(PostgresStore.describe(error))"]
                    )
                }
                try? await Task.sleep(for: retryDelay)
            }
        }
    }
}
