import DataMediator
import DataMediatorSQL
import Logging

/// Registers the views of the writable lists again every ``LoggedViews/renewal`` while the
/// service runs (``LoggedViews``): a replica's keys a day without a registration are
/// forgotten, and writes of replicas serving the lists otherwise would stop logging a
/// `reload` for them.
struct LoggedViewRenewal: Sendable {
    /// The change logs of the writable lists over a SQL store.
    let changeLogs: [SQLChangeLog]
    let logger: Logger

    /// The change logs of `registry`'s lists that a SQL store keeps.
    init(registry: ListRegistry, logger: Logger) {
        changeLogs = registry.adapters.compactMap { $0.changeLog as? SQLChangeLog }
        self.logger = logger
    }

    /// Registers every interval until the task is cancelled (the start registered the
    /// first time); a failure is logged and tried again at the next.
    func run() async {
        guard !changeLogs.isEmpty else { return }
        while (try? await Task.sleep(for: LoggedViews.renewal)) != nil {
            for changeLog in changeLogs {
                do {
                    try await changeLog.register()
                } catch {
                    logger.warning(
                        "could not register the list's views with the store; trying again later",
                        metadata: ["error": "\(String(describing: error))"]
                    )
                }
            }
        }
    }
}
