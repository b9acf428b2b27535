import DataMediator
import Hummingbird
import Logging
import NIOCore
import Prometheus

/// Where and how the HTTP server listens.
public struct HTTPServerConfiguration: Sendable {
    /// The address to bind, e.g. `127.0.0.1` or `0.0.0.0`.
    public var host: String
    /// The port; 0 picks a free one.
    public var port: Int
    /// The bearer tokens that may write; none refuses every write.
    public var writeTokens: [String]
    /// The largest write body taken, in bytes.
    public var maximumBodySize: Int
    /// The bearer tokens that may read lists; none leaves reads open. Write tokens read too.
    public var readTokens: [String]
    /// How live event streams behave.
    public var events: EventConfiguration
    /// The registry `GET /metrics` answers from (the one the process's metrics factory
    /// records into); nil serves no `/metrics`.
    public var metrics: PrometheusCollectorRegistry?
    /// The bearer tokens `GET /metrics` asks for; none leaves it open. Not the read tokens:
    /// an app's read token is in every copy of the app, and the metrics say what every
    /// caller does (each list's requests and writes, the store's version).
    public var metricsTokens: [String] = []
    /// Origins whose browsers may read the answers (CORS); `*` for any; empty for none.
    public var corsOrigins: [String]
    /// Connection, timeout and header-size limits.
    public var limits: ServerLimits
    /// The reverse proxies whose `X-Forwarded-For` names the client of a request, for the
    /// per-client shares and rates; none by default.
    public var trustedProxies: TrustedProxies
    /// The clock of each client's rate (``ClientRates``): the tests' own, which does not move
    /// while a loaded machine runs their requests slowly.
    var rateClock: @Sendable () -> ContinuousClock.Instant = { .now }
    /// The store's version, for the `data_mediator_store_version` metric; nil leaves it out.
    public var storeVersion: (@Sendable () async throws -> Int64)?
    /// Verifies a request's `Authorization` header (a JWT) and answers its claims, for
    /// scoped lists; nil when no key is configured (scoped lists then answer `401`).
    public var claims: (@Sendable (_ authorization: String?) async throws -> [String: JSONValue])?
    /// How far past its `exp` ``claims`` still accepts a token (its leeway): a scoped
    /// list's event stream opened with the token ends there, not at `exp`, so it is not
    /// ended at once while the same token's pages are still answered.
    public var tokenLeeway: Duration
    /// How long a client's reads wait for its latest write when the store's reads may lag
    /// its writes (a read replica); nil when they never do (``ReadYourWrites``).
    public var readYourWrites: Duration?
    /// The notifier that hears of the writes made through every replica of the service
    /// (PostgreSQL's notifications name the client each was made for), so that with
    /// ``readYourWrites`` a client's reads here wait for its writes made through another
    /// replica too; nil: for the writes made through this one only. Given without
    /// ``readYourWrites``, this replica's writes still name their client, for the others.
    public var writeNotifier: ChangeNotifier?
    /// The primary's version now, where the reads lag (a read replica): with
    /// ``writeNotifier``, each read first waits until this replica has heard the
    /// notifications of the writes up to it, as one answered through another replica just
    /// before the read came may not have been heard yet.
    public var primaryVersion: (@Sendable () async throws -> Int64)?
    /// How long a write's answer waits for ``writeNotifier`` to hear the write (so that every
    /// replica has heard it when the client reads next); a test's to lengthen.
    var writeNotificationWait = Duration.milliseconds(100)
    /// How long a `/metrics` scrape's look at the store serves the scrapes after it; a
    /// test's to lengthen (a loaded machine spaces its scrapes past a second).
    var metricsLookAge = Duration.seconds(1)
    /// How long a read waits to hear the notifications up to the primary's version (with
    /// ``primaryVersion``) before it answers `503`; a test's to change.
    var readNotificationWait = Duration.seconds(1)
    /// How far the store's read replica stands behind its primary, for the
    /// `data_mediator_replica_lag_*` metrics and ``readyMaximumLag``; nil without a replica.
    public var replicaLag: (@Sendable () async throws -> ReplicaLag?)?
    /// The replica lag past which `GET /ready` answers `503`, so a load balancer sends
    /// reads elsewhere; nil leaves the lag out of readiness.
    public var readyMaximumLag: Duration?

    /// Creates a server configuration.
    public init(
        host: String = "127.0.0.1",
        port: Int = 8080,
        writeTokens: [String] = [],
        maximumBodySize: Int = 1 << 20,
        readTokens: [String] = [],
        events: EventConfiguration = EventConfiguration(),
        metrics: PrometheusCollectorRegistry? = nil,
        corsOrigins: [String] = [],
        limits: ServerLimits = ServerLimits(),
        trustedProxies: TrustedProxies = .none,
        storeVersion: (@Sendable () async throws -> Int64)? = nil,
        claims: (@Sendable (_ authorization: String?) async throws -> [String: JSONValue])? = nil,
        tokenLeeway: Duration = ClaimsConfiguration.defaultLeeway,
        readYourWrites: Duration? = nil,
        writeNotifier: ChangeNotifier? = nil,
        primaryVersion: (@Sendable () async throws -> Int64)? = nil,
        replicaLag: (@Sendable () async throws -> ReplicaLag?)? = nil,
        readyMaximumLag: Duration? = nil
    ) {
        self.readYourWrites = readYourWrites
        self.writeNotifier = writeNotifier
        self.primaryVersion = primaryVersion
        self.replicaLag = replicaLag
        self.readyMaximumLag = readyMaximumLag
        self.host = host
        self.port = port
        self.writeTokens = writeTokens
        self.maximumBodySize = maximumBodySize
        self.readTokens = readTokens
        self.events = events
        self.metrics = metrics
        self.corsOrigins = corsOrigins
        self.limits = limits
        self.trustedProxies = trustedProxies
        self.claims = claims
        self.tokenLeeway = tokenLeeway
        self.storeVersion = storeVersion
    }
}

/// Builds the router: problem+json errors and request logs around every route, then the
/// list and operation routes.
///
/// - Parameter readiness: answers why a source cannot be read now (nil when every one
///   can), for `GET /ready`.
public func buildRouter(
    registry: ListRegistry,
    configuration: HTTPServerConfiguration = HTTPServerConfiguration(),
    readiness: @escaping @Sendable () async -> String? = { nil }
) -> Router<ClientContext> {
    let router = Router(context: ClientContext.self, options: .autoGenerateHeadEndpoints)
    // Middleware applies only to routes added after it, and to the not-found answer.
    // The request's id, metrics and log line.
    router.add(middleware: RequestMiddleware())
    if !configuration.corsOrigins.isEmpty {
        router.add(middleware: CORSOriginsMiddleware(origins: configuration.corsOrigins))
    }
    // Errors become problems and are thrown on up, so the request's metrics count them.
    router.add(middleware: ProblemMiddleware(allow: { path in MethodNotAllowed.allow(at: path, registry: registry) }))
    // Answers in gzip to clients that accept it (not event streams).
    router.add(middleware: CompressionMiddleware())
    router.add(middleware: ServerOptionsMiddleware())
    router.add(middleware: UntaggedPreconditionMiddleware())
    OperationRoutes(
        readiness: readiness,
        metrics: configuration.metrics,
        metricsAccess: configuration.metricsTokens.isEmpty
            ? nil : BearerAccess(tokens: configuration.metricsTokens, action: "Metrics"),
        storeVersion: configuration.storeVersion,
        replicaLag: configuration.replicaLag,
        readyMaximumLag: configuration.readyMaximumLag,
        lookAge: configuration.metricsLookAge,
        readinessAccess: configuration.readTokens.isEmpty
            ? nil
            : BearerAccess(
                tokens: configuration.readTokens + configuration.writeTokens + configuration.metricsTokens
            )
    )
    .register(on: router)
    ExplorerRoutes(
        registry: registry,
        readAccess: configuration.readTokens.isEmpty
            ? nil : BearerAccess(tokens: configuration.readTokens + configuration.writeTokens, action: "Reads"),
        servesMetrics: configuration.metrics != nil
    )
    .register(on: router)
    // Everything below reads or writes lists: behind the read token when one is configured.
    router.add(
        middleware: ReadAccessMiddleware(
            access: BearerAccess(tokens: configuration.readTokens + configuration.writeTokens, action: "Reads"),
            isRequired: !configuration.readTokens.isEmpty,
            scopedLists: Set(registry.adapters.filter { $0.definition.scope != nil }.map(\.definition.name)),
            verify: configuration.claims
        )
    )
    // Each client's share of the routes that cost more than a page, and of the streams.
    let identity = ClientIdentity(
        tokens: BearerAccess(tokens: configuration.readTokens + configuration.writeTokens),
        verify: configuration.claims,
        proxies: configuration.trustedProxies,
        readOnlyTokens: BearerAccess(
            tokens: configuration.readTokens.filter { !configuration.writeTokens.contains($0) }
        )
    )
    // Each client's line of reads: its pages and lookups, and its streams' catching up.
    let readLines = ClientLines(share: configuration.limits.readsPerClient)
    router.add(
        middleware: ClientShareMiddleware(
            shares: ClientShares(share: configuration.limits.requestsPerClient),
            rates: configuration.limits.requestRatePerClient.map {
                ClientRates(perSecond: $0, now: configuration.rateClock)
            },
            writeLines: ClientLines(share: configuration.limits.writesPerClient),
            writeRates: configuration.limits.writeRatePerClient.map {
                ClientRates(perSecond: $0, now: configuration.rateClock)
            },
            readLines: readLines,
            maximumBodySize: configuration.maximumBodySize,
            identity: identity,
            composites: Set(registry.adapters.filter { $0.definition.composition != nil }.map(\.definition.name))
        )
    )
    let writes = configuration.readYourWrites.map { ReadYourWrites(keep: $0) }
    if let writes, let notifier = configuration.writeNotifier { writes.observe(notifier) }
    if writes != nil || configuration.writeNotifier != nil {
        router.add(
            middleware: WriteOriginMiddleware(
                identity: identity,
                writes: writes,
                notifier: configuration.writeNotifier,
                notificationWait: configuration.readNotificationWait
            )
        )
    }
    if let writes {
        router.add(
            middleware: ReadYourWritesMiddleware(
                writes: writes,
                registry: registry,
                identity: identity,
                primaryVersion: configuration.primaryVersion.map {
                    FreshVersionRead(within: configuration.readNotificationWait, $0)
                },
                notifier: configuration.writeNotifier,
                notificationWait: configuration.readNotificationWait
            )
        )
    }
    let scope = ScopeAccess(
        verify: configuration.claims,
        operators: BearerAccess(tokens: configuration.writeTokens),
        leeway: configuration.tokenLeeway
    )
    ListRoutes(registry: registry, scope: scope).register(on: router)
    ChangeRoutes(
        registry: registry,
        scope: scope,
        events: configuration.events,
        identity: identity,
        readLines: readLines
    ).register(on: router)
    WriteRoutes(
        registry: registry,
        access: BearerAccess(tokens: configuration.writeTokens),
        scope: scope,
        maximumBodySize: configuration.maximumBodySize,
        readers: BearerAccess(tokens: configuration.readTokens)
    ).register(on: router)
    return router
}

/// Builds the application that serves `registry` on `configuration`'s address.
///
/// - Parameters:
///   - eventLoops: the threads that read and write the connections; by default
///     Hummingbird's shared group, one thread per core.
///   - onServerRunning: called with the bound port once the server listens.
public func buildApplication(
    registry: ListRegistry,
    configuration: HTTPServerConfiguration,
    readiness: @escaping @Sendable () async -> String? = { nil },
    eventLoops: EventLoopGroupProvider = .singleton,
    logger: Logger,
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) -> some ApplicationProtocol {
    Application(
        router: buildRouter(registry: registry, configuration: configuration, readiness: readiness),
        server: .http1(
            configuration: configuration.limits.http1Configuration(
                connections: ConnectionCount(),
                maximumBodySize: configuration.maximumBodySize,
                corsOrigins: configuration.corsOrigins,
                logger: logger
            )
        ),
        configuration: ApplicationConfiguration(
            address: .hostname(configuration.host, port: configuration.port),
            serverName: "data-mediator"
        ),
        onServerRunning: { channel in
            // NIO accepts 4 connections a poll of the sockets by default, and a poll comes
            // once every busy connection has been served: under a flood of connections a
            // new client (a health probe) waited seconds to be accepted (review 113: about
            // 20 a second on the debug build behind `wrk -c 500`, 85 on release behind
            // 1,000). A poll takes what the listen queue holds, up to its size.
            try? await channel.setOption(ChannelOptions.maxMessagesPerRead, value: 256).get()
            await onServerRunning(channel.localAddress?.port ?? configuration.port)
        },
        eventLoopGroupProvider: eventLoops,
        logger: logger
    )
}
