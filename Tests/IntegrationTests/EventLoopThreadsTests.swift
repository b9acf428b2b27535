import DataMediatorTesting
import Foundation
import NIOCore
import Testing

@testable import data_mediator

/// `DATA_MEDIATOR_EVENT_LOOP_THREADS`: how many threads read and write the connections.
@Suite struct EventLoopThreadsTests {
    @Test func theDefaultIsHalfTheCoresAndAValueMustBeFrom1To256() throws {
        let cores = System.coreCount
        #expect(try ServeConfiguration.of([:]).eventLoopThreads == max(1, cores / 2))
        #expect(try ServeConfiguration.of(["DATA_MEDIATOR_EVENT_LOOP_THREADS": "3"]).eventLoopThreads == 3)
        for bad in ["0", "-1", "257", "two"] {
            #expect(throws: (any Error).self, "\(bad)") {
                try ServeConfiguration.of(["DATA_MEDIATOR_EVENT_LOOP_THREADS": bad])
            }
        }
    }

    /// The server runs exactly that many event-loop threads (NIO names them `NIO-ELT-…`).
    @Test func theServerRunsThatManyEventLoopThreads() async throws {
        let server = try await ServerProcess(
            arguments: ["--demo-transactions", "10"],
            environment: ["DATA_MEDIATOR_EVENT_LOOP_THREADS": "3"]
        )
        defer { server.removeData() }
        #expect(try await server.get("/health").status == 200)
        let names = try threadNames(of: server)
        #expect(names.filter { $0.hasPrefix("NIO-ELT") }.count == 3, "\(names)")
        #expect(await server.stop() == 0)
    }

    /// On PostgreSQL, the database's connections run on the same threads: no second group
    /// (PostgresNIO's shared one would be `NIO-SGLTN-…`).
    @Test func postgresConnectionsShareTheServersEventLoopThreads() async throws {
        let url = try await TestDatabase.create()
        var environment = ReplicaTests.environment(url)
        environment["DATA_MEDIATOR_EVENT_LOOP_THREADS"] = "2"
        let server = try await ServerProcess(arguments: ["--demo-transactions", "20"], environment: environment)
        defer { server.removeData() }
        #expect(try await server.get("/lists/transactions/items?limit=2").status == 200)
        let names = try threadNames(of: server)
        #expect(names.filter { $0.hasPrefix("NIO-ELT") }.count == 2, "\(names)")
        #expect(!names.contains { $0.hasPrefix("NIO-SGLTN") }, "\(names)")
        #expect(await server.stop() == 0)
    }

    /// The names of the server process's threads (as `/proc` shows them, at most 15 bytes).
    private func threadNames(of server: ServerProcess) throws -> [String] {
        let tasks = "/proc/\(server.process.processIdentifier)/task"
        return try FileManager.default.contentsOfDirectory(atPath: tasks).map { task in
            (try? String(contentsOfFile: "\(tasks)/\(task)/comm", encoding: .utf8)) ?? ""
        }
    }
}
