import Dispatch
import Foundation
import Logging
import ServiceLifecycle

/// Ends the process when a graceful shutdown has not ended it in time: the grace period,
/// then five seconds for the services to answer their cancellation. A task that ignores
/// cancellation (seen: PostgresNIO's client after the database restarted under writes
/// never finished its run) would otherwise keep the process alive after SIGTERM until an
/// orchestrator's SIGKILL. The timer runs on a Dispatch queue, not on the cooperative
/// pool, so a wedged task cannot hold it up.
struct ShutdownWatchdog: Service {
    let grace: Duration
    let logger: Logger

    func run() async throws {
        try? await gracefulShutdown()
        let limit = grace + .seconds(5)
        let logger = logger
        let deadline = DispatchTime.now() + .seconds(Int(limit.components.seconds))
        DispatchQueue.global().asyncAfter(deadline: deadline) {
            logger.error(
                "the shutdown did not end in time: exiting",
                metadata: ["seconds": "\(limit.components.seconds)"]
            )
            exit(1)
        }
    }
}
