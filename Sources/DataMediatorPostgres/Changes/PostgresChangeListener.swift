import DataMediator
import DataMediatorSQL
import Logging
import PostgresNIO
import ServiceLifecycle
import Synchronization

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

    /// The longest pause between attempts that fail one after another (the pause doubles
    /// from ``retryDelay``): a primary that cannot listen for long (a standby the primary's
    /// URL reaches after a failover answers "cannot execute LISTEN during recovery") is
    /// not asked, nor logged, every second.
    static let longestRetryDelay = Duration.seconds(30)

    /// Whether an attempt began to listen.
    private final class Attempt: Sendable {
        let listened = Atomic<Bool>(false)
    }

    /// Listens until the service group shuts down, listening again after each loss of the
    /// connection.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            var delay = retryDelay
            while !Task.isCancelled {
                var lost: (any Error)?
                let attempt = Attempt()
                do {
                    try await store.primaryGate.withConnection { connection in
                        try await connection.listen(on: ServiceTables.channel) { notifications in
                            attempt.listened.store(true, ordering: .relaxed)
                            await heardFrom()
                            for try await notification in notifications {
                                let (version, writer) = Self.parse(notification.payload)
                                if let version { store.primaryReached(version) }
                                notifier.publish(version: version, writer: writer)
                            }
                        }
                    }
                } catch {
                    lost = error
                }
                // The loss is told after the pause, and only when the listener is to listen
                // again: a service that stops (or refuses to start) shuts the store's
                // clients down before it cancels the listener, which is no loss.
                if attempt.listened.load(ordering: .relaxed) { delay = retryDelay }
                try? await Task.sleep(for: delay)
                if Task.isCancelled { break }
                if let lost {
                    logger.warning(
                        "lost the change notifications; listening again",
                        metadata: ["error": "\(PostgresStore.describe(lost))"]
                    )
                    if !attempt.listened.load(ordering: .relaxed) { delay = min(delay * 2, Self.longestRetryDelay) }
                }
            }
        }
    }

    /// Publishes that the listener begins to listen, so streams catch up on what was
    /// written while it was not. With a read replica, the primary's version now, written
    /// by ``WriteOrigin/everyone``: the writes up to it were not heard here, so every
    /// client's reads wait for the replica to hold them, and reads that wait to hear the
    /// primary's version find it heard.
    private func heardFrom() async {
        guard store.readerConfiguration != nil, let version = try? await store.primaryVersion() else {
            return notifier.publish()
        }
        store.primaryReached(version)
        notifier.publish(version: version, writer: WriteOrigin.everyone)
    }

    /// A notification's payload: the version its write made, then, after a space, the tag
    /// of the client it was made for when there is one (``WriteOrigin``). A payload of
    /// another shape names no version (its streams still wake); a tag of another shape,
    /// no client.
    static func parse(_ payload: String) -> (version: Int64?, writer: String?) {
        let parts = payload.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
        guard let first = parts.first, let version = Int64(first), version > 0 else { return (nil, nil) }
        guard parts.count == 2 else { return (version, nil) }
        return (version, WriteOrigin.isTag(parts[1]) ? String(parts[1]) : nil)
    }
}
