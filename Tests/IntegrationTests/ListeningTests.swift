import DataMediatorTesting
import Foundation
import Testing

/// Where the server listens and keeps its data: a port another program holds, an address
/// that is none, a data folder that is a file, a setting out of range and a port
/// `healthcheck` cannot use are named with their fix, and the exit code is 1.
@Suite struct ListeningTests {
    @Test func aPortInUseOrAnUnknownHostIsNamedWithItsFix() async throws {
        let server = try await ServerProcess(arguments: ["--demo-transactions", "10"])
        defer { server.removeData() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dm-listen-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let demo = ["--data-dir", folder.path, "--demo-transactions", "10"]
        let unset = ["DATA_MEDIATOR_CONFIG": "", "DATA_MEDIATOR_HOST": ""]
        let (taken, says) = try await DemoWalkTests.run(
            ["serve", "--port", String(server.port)] + demo,
            environment: unset
        )
        #expect(taken == 1)
        #expect(says.contains("cannot listen on 127.0.0.1:\(server.port): another program listens there"), "\(says)")
        let (unknown, named) = try await DemoWalkTests.run(
            ["serve", "--port", "0"] + demo,
            environment: unset.merging(["DATA_MEDIATOR_HOST": "not a host"]) { $1 }
        )
        #expect(unknown == 1)
        #expect(named.contains("cannot listen on 'not a host': no such address"), "\(named)")
        let file = folder.appendingPathExtension("txt")
        try Data("x".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let (notFolder, folderSays) = try await DemoWalkTests.run(
            ["serve", "--port", "0", "--data-dir", file.path],
            environment: unset
        )
        #expect(notFolder == 1 && folderSays.contains("the data folder '\(file.path)' is a file"), "\(folderSays)")
        let (outOfRange, rangeSays) = try await DemoWalkTests.run(
            ["serve", "--port", "0"] + demo,
            environment: unset.merging(["DATA_MEDIATOR_IDLE_TIMEOUT_SECONDS": "0"]) { $1 }
        )
        #expect(outOfRange == 1 && rangeSays.contains("must be from 1 to 86400"), "\(rangeSays)")
        #expect(!rangeSays.contains("Usage:"), "\(rangeSays)")
        let (badPort, why) = try await DemoWalkTests.run(["healthcheck"], environment: ["DATA_MEDIATOR_PORT": "abc"])
        #expect(badPort != 0 && why.contains("DATA_MEDIATOR_PORT must be a whole number"), "\(why)")
        #expect(try await server.get("/health").status == 200)
        #expect(await server.stop() == 0)
    }
}
