import Logging
import ServiceLifecycle
import UnixSignals

/// Takes SIGHUP when there is nothing to reload (no JWKS file): its default action ends the
/// process at once, without the graceful shutdown, and operators and log-rotation tools
/// send it expecting a reload. Each one is logged.
struct HangupWatch: Service {
    let logger: Logger

    func run() async throws {
        let signals = await UnixSignalsSequence(trapping: .sighup)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await _ in signals {
                    logger.notice(
                        """
                        SIGHUP: nothing to reload (no DATA_MEDIATOR_JWKS_FILE); the service goes on (the config \
                        and the environment are read at start: restart it to change them)
                        """
                    )
                }
            }
            try? await gracefulShutdown()
            group.cancelAll()
        }
    }
}
