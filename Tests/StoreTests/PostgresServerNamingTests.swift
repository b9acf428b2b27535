import DataMediator
import DataMediatorSQL
import DataMediatorTesting
import Foundation
import Logging
import PostgresNIO
import Testing

@testable import DataMediatorPostgres

/// A read replica that goes away is named as such, in the answers and in the log: which
/// server failed, why its connections fail (the pool's error), once each 10 s however many
/// attempts and calls fail, and when it is back.
@Suite struct PostgresServerNamingTests {
    @Test func aReplicaThatGoesAwayIsNamedInAnswersAndInTheLogUntilItIsBack() async throws {
        let server = try #require(ProcessInfo.processInfo.environment["DATA_MEDIATOR_TEST_DATABASE_URL"])
        let primaryURL = try await TestDatabase.create()
        let replicaURL = try await TestDatabase.create()
        let name = try #require(URLComponents(string: replicaURL)?.path.dropFirst())
        let logs = CapturedLogs()
        let store = try PostgresStore(
            url: primaryURL,
            readURL: replicaURL,
            maximumConnections: 2,
            timeout: .seconds(2),
            logger: logs.logger
        )
        func psql(_ statement: String, on url: String) async throws {
            let ran = try await TestDatabase.run("/usr/bin/psql", [url, "-qc", statement])
            try #require(ran.status == 0, "\(ran.output)")
        }
        func makeReplica() async throws {
            try await psql(
                "CREATE TABLE data_mediator_store (version bigint NOT NULL); INSERT INTO data_mediator_store VALUES (0)",
                on: replicaURL
            )
        }
        try await store.withClientsRunning {
            try await store.prepare()
            try await makeReplica()
            _ = try await store.replicaVersion()
            try await psql("DROP DATABASE \(name) WITH (FORCE)", on: server)
            let dropped = ContinuousClock.now
            // Reads fail, each answer naming the read replica (the first may meet its
            // connection closing, the next ones the pool's failing attempts).
            var answers: [String] = []
            for _ in 0..<4 {
                do {
                    _ = try await store.replicaVersion()
                    Issue.record("a read of a dropped replica answered")
                } catch let error as DataMediatorError {
                    #expect(error.code == .unavailable)
                    answers.append(error.message)
                }
                try await Task.sleep(for: PostgresStore.catchUpPoll * 2)
            }
            #expect(answers.allSatisfy { $0.contains("read replica") }, "\(answers)")
            // Once each 10 s at most, however many attempts and calls failed.
            let told = 1 + Int((ContinuousClock.now - dropped).inSeconds / 10)
            let failedAttempts = logs.records.filter { $0.message == PoolLogHandler.connectFailed }
            #expect(
                (1...told).contains(failedAttempts.count)
                    && failedAttempts.allSatisfy { $0.metadata["database"] == "read replica" },
                "the pool's attempts: \(failedAttempts)"
            )
            let why = failedAttempts.first.flatMap { $0.metadata["psql_error"] }.map { "\($0)" } ?? ""
            #expect(why.contains("does not exist"), "the pool's line says why it cannot connect: \(why)")
            let unavailable = logs.records.filter {
                $0.message == "the read replica is unavailable" && $0.level == .warning
            }
            #expect((1...told).contains(unavailable.count), "the failed calls: \(unavailable)")
            // A call that got no connection says what the pool's attempts met.
            for line in unavailable {
                guard let connecting = line.metadata["last_connect_error"] else { continue }
                #expect("\(connecting)".contains("does not exist"), "\(connecting)")
            }
            // Back: the first read on a new connection tells of it.
            try await psql("CREATE DATABASE \(name)", on: server)
            try await makeReplica()
            var back = false
            for _ in 0..<100 where !back {
                back = (try? await store.replicaVersion()) != nil
                if !back { try await Task.sleep(for: .milliseconds(100)) }
            }
            try #require(back, "the replica's database was made again, and no read reached it")
            let again = logs.records.filter { $0.message == "connected to the read replica again" }
            #expect(again.count == 1 && again.first?.level == .notice, "\(again)")
            #expect(again.first.flatMap { $0.metadata["failed_attempts"] }.map { "\($0)" } != "0")
        }
    }

    /// The pool's failed attempts are told once each interval, with how many and the last
    /// one's error; a connection made forgets them.
    @Test func connectAttemptsAreCountedAndForgottenOnceConnected() {
        let attempts = PoolLogHandler.ConnectAttempts()
        #expect(attempts.lastError == nil && attempts.connected() == 0)
        #expect(attempts.failed("refused") == 1, "the first is told at once")
        #expect(attempts.failed(nil) == nil && attempts.failed("refused again") == nil)
        #expect(attempts.lastError == "refused again")
        #expect(attempts.connected() == 3)
        #expect(attempts.lastError == nil && attempts.connected() == 0)
    }

    /// A statement the server refused for what it names (a table gone behind the service's
    /// back: 42P01) met a server that was reached: the log says it refused, not that it is
    /// unavailable (probe 63).
    @Test func aRefusedStatementIsLoggedAsRefusedNotAsUnavailable() async throws {
        let url = try await TestDatabase.create()
        let logs = CapturedLogs()
        let store = try PostgresStore(url: url, maximumConnections: 2, timeout: .seconds(5), logger: logs.logger)
        try await store.withClientsRunning {
            try await store.prepare()
            await #expect(throws: DataMediatorError.self) {
                try await store.transactions.read { session in
                    try await session.rows("SELECT * FROM probe_63_not_there", [])
                }
            }
        }
        let messages = logs.records.filter { $0.level >= .debug }.map(\.message)
        #expect(messages.contains("the database " + PostgresStore.refusedStatementLog), "\(messages)")
        #expect(!messages.contains { $0.hasSuffix("is unavailable") }, "\(messages)")
    }
}
