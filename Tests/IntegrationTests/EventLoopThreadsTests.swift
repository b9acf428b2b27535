import Foundation
import Testing

@testable import data_mediator

/// `DATA_MEDIATOR_EVENT_LOOP_THREADS`: how many threads read and write the connections.
@Suite struct EventLoopThreadsTests {
    private func settings(_ environment: [String: String]) throws -> ServeSettings {
        try ServeSettings(
            config: nil,
            host: nil,
            port: nil,
            dataDir: nil,
            demoTransactions: nil,
            environment: environment
        )
    }

    @Test func theDefaultIsHalfTheCoresAndAValueMustBeFrom1To256() throws {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        #expect(try settings([:]).eventLoopThreads == max(1, cores / 2))
        #expect(try settings(["DATA_MEDIATOR_EVENT_LOOP_THREADS": "3"]).eventLoopThreads == 3)
        for bad in ["0", "-1", "257", "two"] {
            #expect(throws: (any Error).self, "\(bad)") {
                try settings(["DATA_MEDIATOR_EVENT_LOOP_THREADS": bad])
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
        let tasks = "/proc/\(server.process.processIdentifier)/task"
        let names = try FileManager.default.contentsOfDirectory(atPath: tasks).map { task in
            (try? String(contentsOfFile: "\(tasks)/\(task)/comm", encoding: .utf8)) ?? ""
        }
        #expect(names.filter { $0.hasPrefix("NIO-ELT") }.count == 3, "\(names)")
        #expect(await server.stop() == 0)
    }
}
