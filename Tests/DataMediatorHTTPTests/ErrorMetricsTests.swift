import DataMediator
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Metrics
import NIOCore
import Prometheus
import Synchronization
import Testing

@testable import DataMediatorHTTP

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

    /// With metrics tokens set, `/metrics` answers only a request that holds one: a read or
    /// write token is none (an app's read token is in every copy of the app), and a caller
    /// without one learns neither the lists nor what their callers do (review 94 #2). The
    /// other operation routes stay open.
    @Test func metricsTokensKeepTheMetricsFromOthers() async throws {
        var configuration = HTTPServerConfiguration(metrics: Self.registry)
        configuration.readTokens = ["read-token-of-the-app"]
        configuration.writeTokens = ["write-token-of-ops"]
        configuration.metricsTokens = ["scraper-token"]
        let app = buildApplication(
            registry: HTTPTestSupport.registry(),
            configuration: configuration,
            logger: Logger(label: "ErrorMetricsTests")
        )
        try await app.test(.router) { client in
            for token in [nil, "read-token-of-the-app", "write-token-of-ops", "scraper-tokenx"] {
                let headers: HTTPFields = token.map { [.authorization: "Bearer \($0)"] } ?? [:]
                let refused = try await client.execute(uri: "/metrics", method: .get, headers: headers)
                #expect(refused.status == .unauthorized, "\(token ?? "no token")")
                #expect(refused.headers[.contentType] == "application/problem+json")
                #expect(refused.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
                #expect(!String(buffer: refused.body).contains("sample"), "the refusal names no list")
            }
            let scraped = try await client.execute(
                uri: "/metrics",
                method: .get,
                headers: [.authorization: "Bearer scraper-token"]
            )
            #expect(scraped.status == .ok)
            #expect(String(buffer: scraped.body).contains("hb_requests"))
            #expect(try await client.execute(uri: "/health", method: .get).status == .ok)
        }
        // Without metrics tokens it is open, as before.
        let open = buildApplication(
            registry: HTTPTestSupport.registry(),
            configuration: HTTPServerConfiguration(metrics: Self.registry),
            logger: Logger(label: "ErrorMetricsTests")
        )
        try await open.test(.router) { client in
            let answer = try await client.execute(uri: "/metrics", method: .get)
            #expect(answer.status == .ok)
        }
    }

    /// Scrapes within a second of one another share one look at the store's version: a
    /// flood of `/metrics` (which no client share bounds) reads the store once a second,
    /// not once a scrape (review 94 #3: a scrape a store read, 3 s each with the pool full).
    @Test func scrapesShareALookAtTheStore() async throws {
        final class Looks: Sendable {
            let count = Atomic<Int>(0)
        }
        let looks = Looks()
        var configuration = HTTPServerConfiguration(metrics: Self.registry)
        configuration.storeVersion = {
            looks.count.add(1, ordering: .relaxed)
            // A store that takes its time: scrapes that come meanwhile wait for this look.
            try await Task.sleep(for: .milliseconds(200))
            return 42
        }
        // An hour: however slowly a loaded machine runs the scrapes, they come within it.
        configuration.metricsLookAge = .seconds(3_600)
        let app = buildApplication(
            registry: HTTPTestSupport.registry(),
            configuration: configuration,
            logger: Logger(label: "ErrorMetricsTests")
        )
        try await app.test(.router) { client in
            for _ in 0..<20 {
                let scraped = try await client.execute(uri: "/metrics", method: .get)
                #expect(String(buffer: scraped.body).contains("data_mediator_store_version"))
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<10 { group.addTask { _ = try await client.execute(uri: "/metrics", method: .get) } }
                try await group.waitForAll()
            }
            #expect(looks.count.load(ordering: .relaxed) == 1, "one look for 30 scrapes")
        }
    }

    /// A look is shared while it runs and for its age after it ended, then made again.
    @Test func aSharedLookIsMadeAgainPastItsAge() async {
        let shared = SharedLook<Int>(age: .zero)
        let looks = Atomic<Int>(0)
        for _ in 0..<3 { _ = await shared.value { looks.add(1, ordering: .relaxed).newValue } }
        #expect(looks.load(ordering: .relaxed) == 3)
        let kept = SharedLook<Int>(age: .seconds(3_600))
        #expect(await kept.value { 7 } == 7)
        #expect(await kept.value { 8 } == 7, "the answer within its age")
    }

    /// A method no route serves (`TRACE`, `PROPFIND`) is `405` at a route's path, and is
    /// counted under that route, as `POST /health` is; a path no route has stays `NotFound`.
    @Test func aMethodNoRouteServesIsCountedUnderItsPathsRoute() async throws {
        let app = buildApplication(
            registry: HTTPTestSupport.registry(provider: FailingProvider()),
            configuration: HTTPServerConfiguration(metrics: Self.registry),
            logger: Logger(label: "ErrorMetricsTests")
        )
        let propfind = try #require(HTTPRequest.Method("PROPFIND"))
        try await app.test(.router) { client in
            #expect(try await client.execute(uri: "/lists", method: .trace).status == .methodNotAllowed)
            #expect(
                try await client.execute(uri: "/lists/sample/items/a/b", method: propfind).status == .methodNotAllowed
            )
            #expect(try await client.execute(uri: "/nowhere/at/all", method: .trace).status == .methodNotAllowed)
            let text = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
            let lists = #"hb_requests{http_route="/lists",http_request_method="TRACE",http_response_status_code="405"}"#
            let item =
                #"hb_requests{http_route="/lists/{list}/items/{id}",http_request_method="_OTHER",http_response_status_code="405"}"#
            let nowhere =
                #"hb_requests{http_route="NotFound",http_request_method="TRACE",http_response_status_code="405"}"#
            #expect(Self.value(of: lists, in: text) >= 1, "\(text)")
            #expect(Self.value(of: item, in: text) >= 1, "\(text)")
            #expect(Self.value(of: nowhere, in: text) >= 1, "\(text)")
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
