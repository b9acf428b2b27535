import DataMediator
import DataMediatorHTTP
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Synchronization
import Testing

/// A read replica's lag on `GET /metrics`, and held against its bound by `GET /ready`, so
/// that a load balancer sends reads elsewhere while the replica is far behind.
@Suite struct ReplicaLagReadinessTests {
    /// What the store's lag look answers: a lag, or a failure.
    final class Look: Sendable {
        let answer = Mutex<Result<ReplicaLag?, DataMediatorError>>(.success(nil))
        func lag() throws -> ReplicaLag? { try answer.withLock { $0 }.get() }
    }

    func application(_ look: Look, bound: Duration?) -> some ApplicationProtocol {
        buildApplication(
            registry: HTTPTestSupport.registry(provider: FailingProvider()),
            configuration: HTTPServerConfiguration(
                metrics: ErrorMetricsTests.registry,
                replicaLag: { try look.lag() },
                readyMaximumLag: bound
            ),
            logger: Logger(label: "ReplicaLagReadinessTests")
        )
    }

    @Test func readinessHoldsTheLagAgainstItsBound() async throws {
        let look = Look()
        try await application(look, bound: .seconds(5)).test(.router) { client in
            look.answer.withLock { $0 = .success(ReplicaLag(versions: 3, seconds: 4.5)) }
            #expect(try await client.execute(uri: "/ready", method: .get).status == .ok)
            look.answer.withLock { $0 = .success(ReplicaLag(versions: 40, seconds: 12.7)) }
            let behind = try await client.execute(uri: "/ready", method: .get)
            #expect(behind.status == .serviceUnavailable)
            #expect(behind.headers[.retryAfter] == "1")
            #expect(behind.headers[.contentType] == "application/problem+json")
            let detail = String(buffer: behind.body)
            #expect(detail.contains("12.7 s (40 versions) behind") && detail.contains("5 s"), "\(detail)")
            // A lag that cannot be read is no readiness either.
            look.answer.withLock { $0 = .failure(DataMediatorError(.unavailable, "the replica is down")) }
            let unknown = try await client.execute(uri: "/ready", method: .get)
            #expect(unknown.status == .serviceUnavailable, "\(String(buffer: unknown.body))")
            look.answer.withLock { $0 = .success(ReplicaLag(versions: 0, seconds: 0)) }
            #expect(try await client.execute(uri: "/ready", method: .get).status == .ok)
        }
    }

    /// A store that does not answer (a database or replica down, whose pool waits the
    /// whole database timeout for a connection) is told within a health check's time, and
    /// a metrics scrape is answered. The looks here never answer: without the bound the
    /// test runs into its time limit (a wall-clock bound of its own failed under the whole
    /// suite's load, where the answers took 110 s on two cores).
    @Test(.timeLimit(.minutes(5))) func aStoreThatDoesNotAnswerIsNotReadyAndTheScrapeGoesOn() async throws {
        let application = buildApplication(
            registry: HTTPTestSupport.registry(provider: FailingProvider()),
            configuration: HTTPServerConfiguration(
                metrics: ErrorMetricsTests.registry,
                storeVersion: {
                    try await Task.sleep(for: .seconds(3_600))
                    return 1
                },
                replicaLag: {
                    try await Task.sleep(for: .seconds(3_600))
                    return nil
                },
                readyMaximumLag: .seconds(5)
            ),
            readiness: {
                try? await Task.sleep(for: .seconds(3_600))
                return nil
            },
            logger: Logger(label: "ReplicaLagReadinessTests")
        )
        try await application.test(.router) { client in
            let ready = try await client.execute(uri: "/ready", method: .get)
            #expect(ready.status == .serviceUnavailable)
            #expect(String(buffer: ready.body).contains("did not answer within"), "\(String(buffer: ready.body))")
            #expect(try await client.execute(uri: "/metrics", method: .get).status == .ok)
        }
    }

    @Test func withoutABoundTheLagIsShownButNeverHeldAgainstReadiness() async throws {
        let look = Look()
        look.answer.withLock { $0 = .success(ReplicaLag(versions: 7_777, seconds: 3_600.25)) }
        try await application(look, bound: nil).test(.router) { client in
            #expect(try await client.execute(uri: "/ready", method: .get).status == .ok)
            let text = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
            #expect(ErrorMetricsTests.value(of: "data_mediator_replica_lag_versions", in: text) == 7_777, "\(text)")
            #expect(ErrorMetricsTests.value(of: "data_mediator_replica_lag_seconds", in: text) == 3_600.25)
        }
    }
}
