import ArgumentParser
import DataMediator
import DataMediatorHTTP
import DataMediatorSQL
import DataMediatorSQLite
import Foundation
import Hummingbird
import Logging
import Metrics
import NIOCore
import NIOPosix
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

    @Option(
        parsing: .unconditional,
        help: "The port to listen on, 0 for any free one (env DATA_MEDIATOR_PORT; default 8080)."
    )
    var port: Int?

    @Option(help: "Where the demo store and the cursor secret live (env DATA_MEDIATOR_DATA_DIR; default ./data).")
    var dataDir: String?

    @Option(
        parsing: .unconditional,
        help: "Transactions generated for a new demo store (env DATA_MEDIATOR_DEMO_TRANSACTIONS; default 100000)."
    )
    var demoTransactions: Int?

    func run() async throws {
        // SIGHUP's default action ends the process at once; the service takes it once it
        // serves (`HangupWatch`, `KeySetWatch`), and until then it is ignored: an operator's
        // or a log rotation's SIGHUP during a start of seconds (a demo made, indexes built)
        // ended it (review 110 #3).
        signal(SIGHUP, SIG_IGN)
        let environment = ProcessInfo.processInfo.environment
        // A refusal is said in the log's format, also when the settings themselves are refused.
        let logFormat = LogFormat.named(environment["DATA_MEDIATOR_LOG_FORMAT"])
        let settings: ServeConfiguration
        do {
            settings = try ServeConfiguration(
                config: config,
                host: host,
                port: port,
                dataDir: dataDir,
                demoTransactions: demoTransactions,
                environment: environment
            )
        } catch let error as ValidationError {
            // A setting, not the command line: its message alone, without the usage.
            Self.refuse("serve: \(error.message)", format: logFormat)
            throw ExitCode.failure
        }
        let logger = bootstrapLogging(level: environment["DATA_MEDIATOR_LOG_LEVEL"], format: settings.logFormat)
        for warning in settings.warnings { logger.warning("\(warning)") }
        // The threads of the connections: the HTTP server's and the database's. They live
        // until the process ends: shut down after the services stop, a loop could still be
        // handed late work (a closing connection, a database timer's cancellation), which
        // NIO reports on stderr ("Cannot schedule tasks on an EventLoop that has already
        // shut down").
        let eventLoops = MultiThreadedEventLoopGroup(numberOfThreads: settings.eventLoopThreads)
        do {
            try await Self.checkListening(host: settings.host, port: settings.port, eventLoops: eventLoops)
        } catch {
            Self.refuse(
                Self.listenRefusal(error, host: settings.host, port: settings.port) ?? "serve: \(error)",
                format: logFormat
            )
            throw ExitCode.failure
        }
        let wiring: Wiring
        // SQLite's lists are checked before anything listens; PostgreSQL's once its
        // clients run (as services of the group below).
        var checked: ListRegistry?
        var verifier: ReloadingClaimsVerifier?
        var audienceless = false
        var issuerless = false
        do {
            if let claims = try ClaimsConfiguration.load(from: environment) {
                verifier = try await ReloadingClaimsVerifier(claims)
                audienceless = claims.audience == nil
                issuerless = claims.issuer == nil && claims.keySetFile != nil
                for key in claims.skippedKeys {
                    logger.warning("key set: \(key); it is left out", metadata: ["file": "\(claims.keySetFile ?? "")"])
                }
            }
        } catch {
            Self.refuse("serve: \(error)", format: logFormat)
            throw ExitCode.failure
        }
        let acceptsAnyAudience = audienceless
        let acceptsAnyIssuer = issuerless
        do {
            wiring = try await Wiring(
                settings: settings,
                environment: environment,
                eventLoops: eventLoops,
                logger: logger
            )
            var sqlite = false
            switch wiring.store {
            case .sqlite:
                sqlite = true
                checked = try await wiring.registry(logger: logger)
            case .postgres: try await wiring.checkConnectionLimits()
            }
            let unused = ServeConfiguration.unusedSettings(
                in: environment,
                sqlite: sqlite,
                config: settings.config != nil,
                demoFlag: demoTransactions != nil
            )
            for warning in unused { logger.warning("\(warning)") }
        } catch let error as ConfigFileErrors {
            Self.refuse(error.description, format: logFormat)
            throw ExitCode.failure
        } catch {
            Self.refuse("serve: \(error)", format: logFormat)
            throw ExitCode.failure
        }
        let metrics = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: metrics))
        let claims = verifier.map(Self.claims(of:))
        let tokenLeeway = verifier?.leeway ?? ClaimsConfiguration.defaultLeeway
        let scopedKeys = verifier != nil
        let serving = ServingService { [checked] in
            let registry: ListRegistry
            if let checked {
                registry = checked
            } else {
                registry = try await wiring.registry(logger: logger)
            }
            if settings.writeTokens.isEmpty, registry.adapters.contains(where: \.isWritable) {
                let slices = scopedKeys && registry.adapters.contains { $0.isWritable && $0.definition.scope != nil }
                let refused = "writes are refused (403): DATA_MEDIATOR_WRITE_TOKENS is not set"
                logger.notice(
                    "\(refused)\(slices ? "; JWT holders still write their own slice of the scoped lists" : "")"
                )
            }
            let scoped = registry.adapters.filter { $0.definition.scope != nil }.map(\.definition.name)
            if scopedKeys, acceptsAnyAudience, !scoped.isEmpty {
                // RFC 7519 4.1.3 has a token whose `aud` does not name its reader refused;
                // API.md checks `aud` only when one is configured.
                logger.notice(
                    "\(Self.anyAudience)",
                    metadata: ["lists": "\(scoped.joined(separator: ","))"]
                )
            }
            if acceptsAnyIssuer, !scoped.isEmpty {
                logger.notice("\(Self.anyIssuer)", metadata: ["lists": "\(scoped.joined(separator: ","))"])
            }
            if !scopedKeys, !scoped.isEmpty {
                logger.warning(
                    "scoped lists answer 401 to everyone: neither DATA_MEDIATOR_JWT_SECRET nor DATA_MEDIATOR_JWKS_FILE is set",
                    metadata: ["lists": "\(scoped.joined(separator: ","))"]
                )
            }
            var http = HTTPServerConfiguration(
                host: settings.host,
                port: settings.port,
                writeTokens: settings.writeTokens,
                maximumBodySize: settings.maximumBodyBytes,
                readTokens: settings.readTokens,
                events: EventConfiguration(
                    heartbeat: .seconds(settings.heartbeatSeconds),
                    maximumStreams: settings.maximumStreams,
                    maximumStreamsPerClient: settings.maximumStreamsPerClient
                ),
                metrics: metrics,
                corsOrigins: settings.corsOrigins,
                limits: settings.limits,
                trustedProxies: settings.trustedProxies,
                storeVersion: wiring.storeVersion,
                claims: claims,
                tokenLeeway: tokenLeeway,
                // A read replica lags the primary: a client's reads wait for its writes.
                readYourWrites: settings.databaseReadURL == nil ? nil : .seconds(60),
                // Writes through other replicas of the service too, by their notifications
                // (PostgreSQL's, which name each write's client).
                writeNotifier: settings.databaseURL == nil ? nil : wiring.notifier,
                primaryVersion: settings.databaseReadURL == nil ? nil : wiring.primaryVersion,
                replicaLag: settings.databaseReadURL == nil ? nil : wiring.replicaLag,
                readyMaximumLag: settings.readyMaximumLagSeconds.map { .seconds($0) }
            )
            http.metricsTokens = settings.metricsTokens
            let app = buildApplication(
                registry: registry,
                configuration: http,
                readiness: wiring.readiness,
                eventLoops: .shared(eventLoops),
                logger: logger,
                onServerRunning: { port in
                    logger.info("listening", metadata: ["host": "\(settings.host)", "port": "\(port)"])
                }
            )
            // Other programs' writes are looked for once the lists' tables are prepared.
            let seconds = settings.outsideWritesSeconds
            let watch = seconds > 0 ? wiring.outsideWriteWatch(interval: .seconds(seconds), logger: logger) : nil
            let renewal = LoggedViewRenewal(registry: registry, logger: logger)
            try await withThrowingDiscardingTaskGroup { group in
                if let watch { group.addTask { await watch.run() } }
                group.addTask { await renewal.run() }
                try await app.run()
                group.cancelAll()
            }
        }
        // SIGTERM or SIGINT: the services stop in reverse order. The event streams end first
        // (with `event: shutdown`), then the server stops accepting and finishes what is in
        // flight, for at most the grace period; the store's clients stop last. Then a SQLite
        // store's WAL is checkpointed.
        var services: [any Service] =
            wiring.storeServices(logger: logger) + [
                serving, StreamCloser(notifier: wiring.notifier, logger: logger),
                ShutdownWatchdog(grace: .seconds(settings.shutdownGraceSeconds), logger: logger),
            ]
        // A JWKS file is read again on SIGHUP and every DATA_MEDIATOR_JWKS_RELOAD_SECONDS;
        // without one, SIGHUP is logged and nothing more.
        if let verifier, verifier.keySetFile != nil {
            let seconds = settings.keySetReloadSeconds
            services.append(
                KeySetWatch(verifier: verifier, interval: seconds > 0 ? .seconds(seconds) : nil, logger: logger)
            )
        } else {
            services.append(HangupWatch(logger: logger))
        }
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: services.map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) },
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            ).with(maximumGracefulShutdownDuration: .seconds(settings.shutdownGraceSeconds))
        )
        do {
            try await group.run()
        } catch let error as ConfigFileErrors {
            Self.refuse(error.description, format: logFormat)
            throw ExitCode.failure
        } catch let error as StoreError {
            Self.refuse("serve: \(error)", format: logFormat)
            throw ExitCode.failure
        } catch let error where error is DataFolder.Problem || error is CursorSecretError {
            // A PostgreSQL store's data folder and cursor secret are made once its lists passed.
            Self.refuse("serve: \(error)", format: logFormat)
            throw ExitCode.failure
        } catch let error where Self.listenRefusal(error, host: settings.host, port: settings.port) != nil {
            Self.refuse(Self.listenRefusal(error, host: settings.host, port: settings.port) ?? "", format: logFormat)
            throw ExitCode.failure
        } catch {
            Self.refuse("serve: \(error)", format: logFormat)
            throw ExitCode.failure
        }
        guard case .sqlite(let store) = wiring.store else { return }
        do {
            try store.checkpoint()
            logger.info("stopped; the store is checkpointed")
        } catch {
            logger.error("stopped; the store's checkpoint failed", metadata: ["error": "\(error)"])
        }
    }
}

/// The HTTP server as a service: `start` builds it (once the store's services run) and
/// serves until the group shuts down.
struct ServingService: Service {
    let start: @Sendable () async throws -> Void

    func run() async throws {
        try await start()
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
        do {
            try await gracefulShutdown()
        } catch {
            // Cancelled: the group ends because a service failed (the server could not
            // listen, say), which says so itself; nothing was served to shut down.
            notifier.finishAll()
            return
        }
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

extension ServeCommand {
    /// What `serve` says at start when it verifies JWTs for scoped lists without
    /// `DATA_MEDIATOR_JWT_AUDIENCE`.
    static let anyAudience =
        "JWTs are accepted whatever their 'aud' names: DATA_MEDIATOR_JWT_AUDIENCE is not set (a token its keys "
        + "verify that was issued for another service is accepted here too)"

    /// What `serve` says at start when it verifies JWTs of a key set file for scoped lists
    /// without `DATA_MEDIATOR_JWT_ISSUER`: a set may hold several identity providers' keys,
    /// and a caller is their `sub` alone.
    static let anyIssuer =
        "JWTs of any issuer whose key the key set holds are accepted: DATA_MEDIATOR_JWT_ISSUER is not set (with the "
        + "keys of several identity providers, a 'sub' two of them issue is one caller, its slice and its shares)"

    /// The claims of a request's `Authorization` header, as the routes of scoped lists ask.
    static func claims(of verifier: ReloadingClaimsVerifier) -> @Sendable (String?) async throws -> [String: JSONValue]
    {
        { authorization in try await verifier.claims(fromAuthorization: authorization) }
    }
}
