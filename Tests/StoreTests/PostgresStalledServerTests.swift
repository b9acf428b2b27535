import DataMediator
import DataMediatorSQL
import DataMediatorTesting
import Foundation
import PostgresNIO
import Testing

@testable import DataMediatorPostgres

#if canImport(Glibc)
import Glibc
#endif

/// A server that stops answering without closing its connections (a stopped process, a
/// network cut off without a reset) holds a read for the store's timeout, not for as long
/// as it stays silent: a probe saw a read through a replica wait out a whole primary
/// outage, 30 s, and then answer "did not answer in time".
@Suite struct PostgresStalledServerTests {
    @Test(.timeLimit(.minutes(4))) func aReadOnAServerThatStopsAnsweringEndsAtTheTimeout() async throws {
        // A server of its own: its stopped processes must not hold the other tests'.
        try await OwnPostgres.withServer { url, _ in
            let logs = CapturedLogs()
            let store = try PostgresStore(
                url: url + "?sslmode=disable",
                maximumConnections: 2,
                timeout: .seconds(10),
                logger: logs.logger
            )
            try await store.withClientsRunning {
                // Two reads at once lease both connections: their server processes.
                async let one = store.transactions.read { session in
                    try await session.integer("SELECT pg_backend_pid() FROM pg_sleep(0.3)")
                }
                async let two = store.transactions.read { session in
                    try await session.integer("SELECT pg_backend_pid() FROM pg_sleep(0.3)")
                }
                let processes = Set([try await one, try await two].map { pid_t($0) })
                try #require(processes.count == 2)
                for process in processes { try #require(kill(process, SIGSTOP) == 0, "cannot stop \(process)") }
                // Whatever happens, the server answers again after 90 s.
                let resume = Task {
                    try? await Task.sleep(for: .seconds(90))
                    for process in processes { kill(process, SIGCONT) }
                }
                defer { resume.cancel() }
                // A read in a transaction and a single bounded statement (a page's read), at once:
                // each leases one of the stopped processes' connections.
                async let inTransaction = Self.failure {
                    _ = try await store.transactions.read { try await $0.integer("SELECT 1") }
                }
                async let statement = Self.failure {
                    _ = try await store.readStatement { connection in
                        try await connection.query("SELECT 1", logger: PostgresFixture.logger).collect().count
                    }
                }
                let failures = [await inTransaction, await statement]
                for process in processes { kill(process, SIGCONT) }
                for (failure, waited) in failures {
                    let error = try #require(failure as? DataMediatorError, "\(String(describing: failure))")
                    #expect(error.code == .unavailable, "\(error)")
                    #expect(error.message.contains("did not answer in time"), "\(error)")
                    // The timeout is 10 s (a loaded machine needs it for the reads above); the
                    // server stayed silent until the read ended, or for 90 s.
                    #expect(waited < .seconds(60), "the read waited \(waited) for a server that did not answer")
                }
                // The log says why (the service ended the calls; that says nothing of the server).
                let said = logs.records.filter { $0.message == "the database is unavailable" }
                    .compactMap { $0.metadata["error"].map { "\($0)" } }
                #expect(said.contains { $0.contains("the server did not answer within") }, "\(said)")
                #expect(try await store.transactions.read { try await $0.integer("SELECT 1") } == 1)
            }
        }
    }

    /// What `body` threw, and how long it took.
    static func failure(_ body: () async throws -> Void) async -> (error: (any Error)?, waited: Duration) {
        let started = ContinuousClock.now
        do {
            try await body()
            return (nil, ContinuousClock.now - started)
        } catch {
            return (error, ContinuousClock.now - started)
        }
    }
}
