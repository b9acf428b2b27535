import ArgumentParser
import DataMediator
import DataMediatorHTTP
import DataMediatorSQLite
import Foundation
import Hummingbird
import Logging
import Metrics
import Prometheus
import ServiceLifecycle
import UnixSignals

/// `data-mediator serve`: serves the lists of a config file, or the built-in demo.
///
/// Each option can also come from the environment (`DATA_MEDIATOR_…`); a flag wins over
/// the environment, which wins over the default.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the lists of a config file, or the built-in demo when none is given."
    )

    @Option(help: "The config file (env DATA_MEDIATOR_CONFIG). Without one, the built-in demo is served.")
    var config: String?

    @Option(help: "The address to listen on (env DATA_MEDIATOR_HOST; default 127.0.0.1).")
    var host: String?

    @Option(help: "The port to listen on, 0 for any free one (env DATA_MEDIATOR_PORT; default 8080).")
    var port: Int?

    @Option(help: "Where the demo store and the cursor secret live (env DATA_MEDIATOR_DATA_DIR; default ./data).")
    var dataDir: String?

    @Option(help: "Transactions generated for a new demo store (env DATA_MEDIATOR_DEMO_TRANSACTIONS; default 100000).")
    var demoTransactions: Int?

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let settings = try ServeSettings(
            config: config,
            host: host,
            port: port,
            dataDir: dataDir,
            demoTransactions: demoTransactions,
            environment: environment
        )
        let logger = bootstrapLogging(level: environment["DATA_MEDIATOR_LOG_LEVEL"], format: settings.logFormat)
        let service: Wiring
        do {
            service = try Wiring(settings: settings, environment: environment, logger: logger)
        } catch let error as ConfigFileErrors {
            printError(error.description)
            throw ExitCode.failure
        } catch {
            printError("data-mediator: \(error)")
            throw ExitCode.failure
        }
        if settings.writeTokens.isEmpty, service.registry.adapters.contains(where: \.isWritable) {
            logger.notice("writes are refused (403): DATA_MEDIATOR_WRITE_TOKENS is not set")
        }
        let metrics = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: metrics))
        let app = buildApplication(
            registry: service.registry,
            configuration: HTTPServerConfiguration(
                host: settings.host,
                port: settings.port,
                writeTokens: settings.writeTokens,
                maximumBodySize: settings.maximumBodyBytes,
                readTokens: settings.readTokens,
                events: EventSettings(
                    heartbeat: .seconds(settings.heartbeatSeconds),
                    maximumStreams: settings.maximumStreams
                ),
                metrics: metrics,
                corsOrigins: settings.corsOrigins,
                limits: settings.limits,
                storeVersion: { [store = service.store] in try await store.version() }
            ),
            readiness: service.readiness,
            logger: logger,
            onServerRunning: { port in
                logger.info("listening", metadata: ["host": "\(settings.host)", "port": "\(port)"])
            }
        )
        // SIGTERM or SIGINT: the event streams end first (with `event: shutdown`), then the
        // server stops accepting and finishes what is in flight, for at most the grace
        // period; then the store's WAL is checkpointed.
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [
                    .init(service: app),
                    .init(service: StreamCloser(notifier: service.notifier, logger: logger)),
                ],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            ).with(maximumGracefulShutdownDuration: .seconds(settings.shutdownGraceSeconds))
        )
        try await group.run()
        do {
            try service.store.checkpoint()
            logger.info("stopped; the store is checkpointed")
        } catch {
            logger.error("stopped; the store's checkpoint failed", metadata: ["error": "\(error)"])
        }
    }
}

/// Writes a line to standard error.
func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

/// A service that, when the service group shuts down, ends every live event stream, so
/// that in-flight requests can finish within the grace period.
struct StreamCloser: Service {
    let notifier: ChangeNotifier
    let logger: Logger

    func run() async throws {
        try? await gracefulShutdown()
        logger.info("shutting down: closing event streams", metadata: ["streams": "\(notifier.subscriberCount)"])
        notifier.finishAll()
    }
}

extension ServiceGroupConfiguration {
    /// This configuration with a bound on graceful shutdown.
    func with(maximumGracefulShutdownDuration duration: Duration) -> ServiceGroupConfiguration {
        var configuration = self
        configuration.maximumGracefulShutdownDuration = duration
        return configuration
    }
}
