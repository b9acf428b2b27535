import DataMediator
import DataMediatorHTTP
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Metrics
import NIOCore
import Prometheus
import Testing

/// Error answers reach `/metrics`: each is counted as a request and as an error, with its status.
@Suite struct ErrorMetricsTests {
    /// The registry the process's metrics factory records into. The metrics system is
    /// bootstrapped once per process, so every test that reads metrics shares this one.
    static let registry: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        return registry
    }()

    @Test func aNotFoundAndAnInternalErrorAreCountedWithTheirStatus() async throws {
        let app = buildApplication(
            registry: HTTPTestSupport.registry(provider: FailingProvider()),
            configuration: HTTPServerConfiguration(metrics: Self.registry),
            logger: Logger(label: "ErrorMetricsTests")
        )
        try await app.test(.router) { client in
            #expect(try await client.execute(uri: "/lists/nope", method: .get).status == .notFound)
            #expect(try await client.execute(uri: "/lists/sample/items", method: .get).status == .internalServerError)
            #expect(try await client.execute(uri: "/health", method: .get).status == .ok)
            let text = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
            let notFound = #"http_route="/lists/{list}",http_request_method="GET""#
            let failed = #"http_route="/lists/{list}/items",http_request_method="GET""#
            // Other suites may answer the same routes in this process: at least one of each.
            #expect(Self.value(of: "hb_request_errors{\(notFound),error_type=\"404\"}", in: text) >= 1, "\(text)")
            #expect(Self.value(of: "hb_request_errors{\(failed),error_type=\"500\"}", in: text) >= 1, "\(text)")
            #expect(Self.value(of: "hb_requests{\(notFound),http_response_status_code=\"404\"}", in: text) >= 1)
            #expect(Self.value(of: "hb_requests{\(failed),http_response_status_code=\"500\"}", in: text) >= 1)
            // A success is no error: no `hb_request_errors` series of a 2xx or 3xx status.
            let successes = text.split(separator: "\n").filter {
                $0.hasPrefix("hb_request_errors{") && ($0.contains("error_type=\"2") || $0.contains("error_type=\"3"))
            }
            #expect(successes.isEmpty, "\(successes)")
        }
    }

    /// The value of the series named `series` in Prometheus's text format; 0 when it is absent.
    static func value(of series: String, in text: String) -> Double {
        for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1)) ?? 0
        }
        return 0
    }
}
