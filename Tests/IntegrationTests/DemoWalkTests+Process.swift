import DataMediator
import DataMediatorTesting
import Foundation
import Testing

@testable import data_mediator

/// The demo's process: how it stops, answers its health check and starts again on its store.
extension DemoWalkTests {
    @Test func sigtermEndsEventStreamsWithAFinalEventExitsZeroAndCheckpointsTheStore() async throws {
        // A long grace period: a stream left open would hold the shutdown up for a minute.
        let server = try await ServerProcess(
            arguments: ["--demo-transactions", "50"],
            environment: ["DATA_MEDIATOR_WRITE_TOKENS": "t", "DATA_MEDIATOR_SHUTDOWN_GRACE_SECONDS": "60"]
        )
        defer { server.removeData() }
        #expect(try await Self.createTransaction(on: server) == 201)
        let output = server.dataDirectory.appendingPathComponent("events.txt")
        #expect(FileManager.default.createFile(atPath: output.path, contents: nil))
        let curl = try ChildProcess(
            "/usr/bin/curl",
            ["-sN", server.base + "/lists/transactions/events?since=0"],
            standardOutput: output.path
        )
        defer { if curl.isRunning { kill(curl.processIdentifier, SIGKILL) } }
        var text = ""
        for _ in 0..<100 where !text.contains("event: insert") {
            try await Task.sleep(for: .milliseconds(50))
            text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        }
        #expect(text.contains("event: insert"))
        // SIGTERM: the stream gets its last event and ends, the process exits 0, promptly.
        let start = ContinuousClock.now
        #expect(await server.stop() == 0)
        #expect(ContinuousClock.now - start < .seconds(30), "the open stream held the shutdown up")
        for _ in 0..<100 where curl.isRunning { try await Task.sleep(for: .milliseconds(20)) }
        #expect(!curl.isRunning)
        text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        #expect(text.hasSuffix("event: shutdown\ndata: {}\n\n"), "\(text)")
        #expect(server.log.contains("the store is checkpointed"))
        // The WAL was written back: the database file alone holds the write.
        let wal = server.dataDirectory.appendingPathComponent(DemoConfig.storeFile + "-wal").path
        let walSize = (try? FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int) ?? 0
        #expect(walSize == 0)
    }

    /// Runs the command to its end and returns its status and standard error (text unless
    /// `environment` names a log format: a refused start is said in the log's).
    static func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> (Int32, String) {
        let (status, _, errors) = try await said(arguments, environment: environment)
        return (status, errors)
    }

    /// ``run(_:environment:)`` with what the command printed on its standard output too.
    static func said(
        _ arguments: [String],
        environment: [String: String] = [:]
    ) async throws -> (status: Int32, output: String, errors: String) {
        let folder = FileManager.default.temporaryDirectory
        let output = folder.appendingPathComponent("dm-output-\(UUID().uuidString)")
        let errors = folder.appendingPathComponent("dm-errors-\(UUID().uuidString)")
        defer { for file in [output, errors] { try? FileManager.default.removeItem(at: file) } }
        let process = try ChildProcess(
            ServerProcess.binary.path,
            arguments,
            environment: ProcessInfo.processInfo.environment
                .merging(["DATA_MEDIATOR_LOG_FORMAT": "text"]) { $1 }
                .merging(environment) { $1 },
            standardOutput: output.path,
            standardError: errors.path
        )
        let status = await process.exit()
        let read = { (url: URL) in (try? String(contentsOf: url, encoding: .utf8)) ?? "" }
        return (status, read(output), read(errors))
    }

    @Test func theHealthcheckCommandPassesOnAServingProcessAndFailsOtherwise() async throws {
        let server = try await ServerProcess(arguments: ["--demo-transactions", "10"])
        defer { server.removeData() }
        let (healthy, _) = try await Self.run(["healthcheck", "--port", String(server.port)])
        #expect(healthy == 0)
        // DATA_MEDIATOR_PORT names the port when --port does not.
        let (fromEnvironment, _) = try await Self.run(
            ["healthcheck"],
            environment: ["DATA_MEDIATOR_PORT": String(server.port)]
        )
        #expect(fromEnvironment == 0)
        // DATA_MEDIATOR_HOST names the address as serve reads it (it was always 127.0.0.1);
        // one listening on every address is asked at loopback.
        let (everywhere, _) = try await Self.run(
            ["healthcheck", "--port", String(server.port)],
            environment: ["DATA_MEDIATOR_HOST": "0.0.0.0"]
        )
        #expect(everywhere == 0)
        let (elsewhere, said) = try await Self.run(
            ["healthcheck", "--port", String(server.port), "--timeout", "1"],
            environment: ["DATA_MEDIATOR_HOST": "127.0.0.2"]
        )
        #expect(elsewhere == 1 && said.contains("127.0.0.2:\(server.port)"), "\(said)")
        let port = server.port
        #expect(await server.stop() == 0)
        let (stopped, message) = try await Self.run(["healthcheck", "--port", String(port)])
        #expect(stopped == 1 && message.contains("unhealthy"), "\(message)")
        // A setting it cannot use is unhealthy too (a HEALTHCHECK takes only 0 and 1), said.
        for (arguments, environment, said) in [
            (
                ["healthcheck", "--port", "70000"], [:],
                "the port (--port or DATA_MEDIATOR_PORT) must be from 1 to 65535"
            ),
            (["healthcheck", "--timeout", "0"], [:], "--timeout must be at least 1 second"),
            (["healthcheck"], ["DATA_MEDIATOR_PORT": "abc"], "DATA_MEDIATOR_PORT must be a whole number"),
        ] {
            let (status, refused) = try await Self.run(arguments, environment: environment)
            #expect(status == 1 && refused.contains("healthcheck: " + said), "\(arguments): \(status) \(refused)")
        }
    }

    @Test func aCursorStaysValidAcrossARestart() async throws {
        let first = try await ServerProcess()
        defer { first.removeData() }
        let page1 = try Page.decode(try await first.get("/lists/transactions/items?limit=7").body)
        let next = try #require(page1.next)
        let page2 = try await first.get("/lists/transactions/items?limit=7&cursor=\(next)")
        #expect(await first.stop() == 0)
        #expect(first.log.contains("created the demo store"))

        let second = try await ServerProcess(dataDirectory: first.dataDirectory)
        let again = try await second.get("/lists/transactions/items?limit=7&cursor=\(next)")
        #expect(again.status == 200)
        #expect(again.body == page2.body)
        #expect(!second.log.contains("created the demo store"))
        #expect(await second.stop() == 0)
    }
}
