import DataMediator
import Hummingbird
import Metrics
import Prometheus

/// Liveness, readiness, the served OpenAPI document and problem type documentation.
struct OperationRoutes: Sendable {
    /// Why the store cannot serve now; nil when it can.
    let readiness: @Sendable () async -> String?
    let metrics: PrometheusCollectorRegistry?
    /// The tokens `/metrics` asks for; nil when it is open.
    let metricsAccess: BearerAccess?
    let storeVersion: (@Sendable () async throws -> Int64)?
    let replicaLag: (@Sendable () async throws -> ReplicaLag?)?
    let readyMaximumLag: Duration?
    /// How long after a scrape's look at the store ended its answer serves the scrapes
    /// after it (``SharedLook``).
    var lookAge = Duration.seconds(1)
    /// Who is told why the store cannot serve (its text names lists, composites and
    /// columns) when reads need a token: the holders of a read, write or metrics token;
    /// nil tells anyone.
    var readinessAccess: BearerAccess? = nil

    func register<Context: RequestContext>(on router: Router<Context>) {
        router.get("/health") { _, _ in
            Self.json(#"{"status":"ok"}"#)
        }
        router.get("/ready") { request, _ in
            let looked = try? await BoundedLook.run { await readiness() }
            guard let problem = looked else {
                throw Problem(
                    .notReady,
                    detail: "The store did not answer within \(BoundedLook.bound.components.seconds) s.",
                    headers: [.retryAfter: "1"]
                )
            }
            if let problem {
                // Untold to an unknown caller where reads need a token: read tokens keep
                // the lists' names from those without one (review 105 #4).
                let told =
                    readinessAccess.map { $0.accepts(request) } ?? true
                    ? problem
                    : "A data source cannot be read right now; a request with a read token is told which and why."
                throw Problem(.notReady, detail: told, headers: [.retryAfter: "1"])
            }
            if let readyMaximumLag, let replicaLag {
                try await Self.holdLag(replicaLag, within: readyMaximumLag)
            }
            return Self.json(#"{"status":"ready"}"#)
        }
        router.get("/openapi.yaml") { request, _ in
            try JSONResponse.make(PackageResources.openapi_yaml, for: request, contentType: "application/yaml")
        }
        // Tagged and revalidated as the contract is: a cache keeps no stale page of a
        // problem type after an upgrade reworded it.
        router.get("/problems/:slug") { request, context in
            let slug = context.parameters.get("slug") ?? ""
            guard let kind = ProblemType.all.first(where: { $0.slug == slug }) else {
                throw Problem(.notFound, detail: "There is no problem type '\(slug)'.")
            }
            let text = "\(kind.title) (\(kind.status.code))\n\n\(kind.documentation)\n"
            return try JSONResponse.make(Array(text.utf8), for: request, contentType: "text/plain; charset=utf-8")
        }
        var paths = ["/health", "/ready", "/openapi.yaml", "/problems/:slug"]
        if let metrics {
            let versions = SharedLook<Int64>(age: lookAge)
            let lags = SharedLook<ReplicaLag>(age: lookAge)
            router.get("/metrics") { request, _ in
                try metricsAccess?.authorize(request)
                // Both looks at once, each bounded: what cannot be read in time keeps the
                // value shown last, and the scrape is answered. A gauge is made at its first
                // value (the registry gives the same one after), so one never read is left
                // out rather than shown as 0.
                async let version = versions.value { await Self.bounded(storeVersion) }
                async let lag = lags.value { await Self.bounded(replicaLag) ?? nil }
                if let version = await version { Gauge(label: "data_mediator_store_version").record(version) }
                if let lag = await lag {
                    Gauge(label: "data_mediator_replica_lag_versions").record(lag.versions)
                    Gauge(label: "data_mediator_replica_lag_seconds").record(lag.seconds)
                }
                return Response(
                    status: .ok,
                    headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
                    body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.emitToBuffer()))
                )
            }
            paths.append("/metrics")
        }
        for path in paths {
            MethodNotAllowed.register(RouterPath(path), on: router)
        }
    }

    /// What `look` answers within ``BoundedLook/bound``; nil when there is none, or it
    /// failed or did not answer in time.
    private static func bounded<Value: Sendable>(_ look: (@Sendable () async throws -> Value)?) async -> Value? {
        guard let look, let answered = try? await BoundedLook.run(look) else { return nil }
        return answered
    }

    /// Throws `not-ready` when the read replica stands further behind its primary than
    /// `bound`, or its lag cannot be read.
    private static func holdLag(
        _ replicaLag: @escaping @Sendable () async throws -> ReplicaLag?,
        within bound: Duration
    ) async throws {
        let lag: ReplicaLag?
        do {
            guard let looked = try await BoundedLook.run(replicaLag) else {
                throw DataMediatorError(.unavailable, "The lag was not read in time.")
            }
            lag = looked
        } catch {
            throw Problem(
                .notReady,
                detail: "How far the read replica stands behind its primary cannot be read right now.",
                headers: [.retryAfter: "1"]
            )
        }
        guard let lag, Duration.seconds(lag.seconds) > bound else { return }
        let versions = lag.versions == 1 ? "1 version" : "\(lag.versions) versions"
        let seconds = (lag.seconds * 10).rounded(.down) / 10
        throw Problem(
            .notReady,
            detail: "The read replica is \(seconds) s (\(versions)) behind its primary, "
                + "more than the \(bound.components.seconds) s readiness allows.",
            headers: [.retryAfter: "1"]
        )
    }

    private static func json(_ text: String) -> Response {
        Response(
            status: .ok,
            headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text))
        )
    }
}
