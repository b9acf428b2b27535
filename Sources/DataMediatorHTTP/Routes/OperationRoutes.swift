import DataMediator
import Hummingbird
import Metrics
import Prometheus

/// Liveness, readiness, the served OpenAPI document and problem type documentation.
struct OperationRoutes: Sendable {
    let readiness: @Sendable () async -> Bool
    let metrics: PrometheusCollectorRegistry?
    let storeVersion: (@Sendable () async throws -> Int64)?
    let replicaLag: (@Sendable () async throws -> ReplicaLag?)?
    let readyMaximumLag: Duration?

    func register<Context: RequestContext>(on router: Router<Context>) {
        router.get("/health") { _, _ in
            Self.json(#"{"status":"ok"}"#)
        }
        router.get("/ready") { _, _ in
            guard await readiness() else {
                throw Problem(.notReady, detail: "A data source cannot be read right now.", headers: [.retryAfter: "1"])
            }
            if let readyMaximumLag, let replicaLag {
                try await Self.holdLag(replicaLag, within: readyMaximumLag)
            }
            return Self.json(#"{"status":"ready"}"#)
        }
        router.get("/openapi.yaml") { request, _ in
            try JSONResponse.make(PackageResources.openapi_yaml, for: request, contentType: "application/yaml")
        }
        router.get("/problems/:slug") { _, context in
            let slug = context.parameters.get("slug") ?? ""
            guard let kind = ProblemType.all.first(where: { $0.slug == slug }) else {
                throw Problem(.notFound, detail: "There is no problem type '\(slug)'.")
            }
            let text = "\(kind.title) (\(kind.status.code))\n\n\(kind.documentation)\n"
            return Response(
                status: .ok,
                headers: [.contentType: "text/plain; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: text))
            )
        }
        var paths = ["/health", "/ready", "/openapi.yaml", "/problems/:slug"]
        if let metrics {
            let storeVersionGauge = Gauge(label: "data_mediator_store_version")
            let lagVersions = Gauge(label: "data_mediator_replica_lag_versions")
            let lagSeconds = Gauge(label: "data_mediator_replica_lag_seconds")
            router.get("/metrics") { _, _ in
                if let storeVersion, let version = try? await storeVersion() {
                    storeVersionGauge.record(version)
                }
                // A lag that cannot be read now leaves the last one shown.
                if let replicaLag, let lag = try? await replicaLag() {
                    lagVersions.record(lag.versions)
                    lagSeconds.record(lag.seconds)
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

    /// Throws `not-ready` when the read replica stands further behind its primary than
    /// `bound`, or its lag cannot be read.
    private static func holdLag(
        _ replicaLag: @Sendable () async throws -> ReplicaLag?,
        within bound: Duration
    ) async throws {
        let lag: ReplicaLag?
        do {
            lag = try await replicaLag()
        } catch {
            throw Problem(
                .notReady,
                detail: "How far the read replica stands behind its primary cannot be read right now.",
                headers: [.retryAfter: "1"]
            )
        }
        guard let lag, Duration.seconds(lag.seconds) > bound else { return }
        let versions = lag.versions == 1 ? "1 version" : "\(lag.versions) versions"
        throw Problem(
            .notReady,
            detail: "The read replica is \(Int(lag.seconds.rounded(.down))) s (\(versions)) behind its primary, "
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
