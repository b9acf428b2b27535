import DataMediator
import Hummingbird
import Metrics
import Prometheus

/// Liveness, readiness, the served OpenAPI document and problem type documentation.
struct OperationRoutes: Sendable {
    let readiness: @Sendable () async -> Bool
    let metrics: PrometheusCollectorRegistry?
    let storeVersion: (@Sendable () async throws -> Int64)?

    func register<Context: RequestContext>(on router: Router<Context>) {
        router.get("/health") { _, _ in
            Self.json(#"{"status":"ok"}"#)
        }
        router.get("/ready") { _, _ in
            guard await readiness() else {
                throw Problem(.notReady, detail: "A data source cannot be read right now.", headers: [.retryAfter: "1"])
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
            router.get("/metrics") { _, _ in
                if let storeVersion, let version = try? await storeVersion() {
                    storeVersionGauge.record(version)
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

    private static func json(_ text: String) -> Response {
        Response(
            status: .ok,
            headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text))
        )
    }
}
