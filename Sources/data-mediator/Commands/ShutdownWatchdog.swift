import Dispatch
import Foundation
import Logging
import ServiceLifecycle

/// Ends the process when a graceful shutdown has not ended it in time: the grace period,
/// then five seconds for the services to answer their cancellation. A task that ignores
/// cancellation (seen: PostgresNIO's client after the database restarted under writes
/// never finished its run) would otherwise keep the process alive after SIGTERM until an
/// orchestrator's SIGKILL. The timer runs on a Dispatch queue, not on the cooperative
/// pool, so a wedged task cannot hold it up. A second SIGINT or SIGTERM during the
/// shutdown ends the process at once (exit code 1): an operator who presses Ctrl-C again
/// does not want to wait out the grace period.
struct ShutdownWatchdog: Service {
    let grace: Duration
    let logger: Logger

    func run() async throws {
        try? await gracefulShutdown()
        let limit = grace + .seconds(5)
        let logger = logger
        // The service group already takes these signals (their default action is off);
        // a Dispatch source sees each one after the first too.
        for signal in [SIGINT, SIGTERM] {
            let source = DispatchSource.makeSignalSource(signal: signal, queue: .global())
            // The handler holds its source: kept for the life of the process.
            source.setEventHandler {
                withExtendedLifetime(source) {}
                logger.warning(
                    "a second stop signal during the shutdown: exiting now",
                    metadata: ["signal": "\(signal)"]
                )
                exit(1)
            }
            source.resume()
        }
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
