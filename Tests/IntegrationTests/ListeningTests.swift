import DataMediatorTesting
import Foundation
import Glibc
import Testing

/// Where the server listens and keeps its data: a port another program holds, an address
/// that is none, a data folder that is a file, a setting out of range and a port
/// `healthcheck` cannot use are named with their fix, and the exit code is 1; a start
/// refused for where it listens or for its cursor secret makes no data folder.
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
        #expect(!says.contains("shutting down"), "a server that never listened said it shut down: \(says)")
        let (unknown, named) = try await DemoWalkTests.run(
            ["serve", "--port", "0"] + demo,
            environment: unset.merging(["DATA_MEDIATOR_HOST": "not a host"]) { $1 }
        )
        #expect(unknown == 1)
        #expect(named.contains("cannot listen on 'not a host': no such address"), "\(named)")
        let (short, shortSays) = try await DemoWalkTests.run(
            ["serve", "--port", "0"] + demo,
            environment: unset.merging(["DATA_MEDIATOR_CURSOR_SECRET": "short"]) { $1 }
        )
        #expect(short == 1 && shortSays.contains("must be at least 16 bytes"), "\(shortSays)")
        // Refused before the start made anything: no data folder, so no secret and no store.
        #expect(!FileManager.default.fileExists(atPath: folder.path), "a refused start made \(folder.path)")
        let file = folder.appendingPathExtension("txt")
        try Data("x".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let (notFolder, folderSays) = try await DemoWalkTests.run(
            ["serve", "--port", "0", "--data-dir", file.path],
            environment: unset
        )
        #expect(notFolder == 1 && folderSays.contains("the data folder '\(file.path)' is a file"), "\(folderSays)")
        let (underFile, underSays) = try await DemoWalkTests.run(
            ["serve", "--port", "0", "--data-dir", file.path + "/data/more"],
            environment: unset
        )
        #expect(underFile == 1 && underSays.contains("cannot be made: '\(file.path)' is a file"), "\(underSays)")
        let (outOfRange, rangeSays) = try await DemoWalkTests.run(
            ["serve", "--port", "0"] + demo,
            environment: unset.merging(["DATA_MEDIATOR_IDLE_TIMEOUT_SECONDS": "0"]) { $1 }
        )
        #expect(outOfRange == 1 && rangeSays.contains("must be from 1 to 86400"), "\(rangeSays)")
        #expect(!rangeSays.contains("Usage:"), "\(rangeSays)")
        let (badPort, why) = try await DemoWalkTests.run(["healthcheck"], environment: ["DATA_MEDIATOR_PORT": "abc"])
        #expect(badPort != 0 && why.contains("DATA_MEDIATOR_PORT must be a whole number"), "\(why)")
        // A negative number is the option's value, not another option: its own range message.
        let (negative, negativeSays) = try await DemoWalkTests.run(["healthcheck", "--timeout", "-1"])
        #expect(negative != 0 && negativeSays.contains("--timeout must be at least 1 second"), "\(negativeSays)")
        #expect(try await server.get("/health").status == 200)
        #expect(await server.stop() == 0)
    }

    /// A PostgreSQL store that cannot be reached says why (the pool alone only knows that
    /// its time ran out), with the server and the database it tried; at once when retrying
    /// cannot mend it.
    @Test func aDatabaseThatCannotBeReachedIsNamedWithWhy() async throws {
        let existing = try await TestDatabase.create()
        var missing = try #require(URLComponents(string: existing))
        missing.path = "/dm_no_such_database"
        var refused = missing
        refused.path = "/lists"
        let (port, held) = try Self.closedPort()
        defer { close(held) }
        refused.port = port
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dm-nodb-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let arguments = ["serve", "--port", "0", "--data-dir", folder.path]
        let unset = [
            "DATA_MEDIATOR_CONFIG": "", "DATA_MEDIATOR_HOST": "", "DATA_MEDIATOR_DATABASE_TIMEOUT_SECONDS": "1",
        ]
        // Said at once: a missing database does not appear by retrying for the timeout.
        let started = ContinuousClock.now
        let (noDatabase, says) = try await DemoWalkTests.run(
            arguments,
            environment: unset.merging([
                "DATA_MEDIATOR_DATABASE_URL": try #require(missing.string),
                "DATA_MEDIATOR_DATABASE_TIMEOUT_SECONDS": "60",
            ]) { $1 }
        )
        #expect(ContinuousClock.now - started < .seconds(30), "the refusal waited out the timeout")
        #expect(noDatabase == 1)
        #expect(says.contains("serve: cannot connect to PostgreSQL at"), "\(says)")
        #expect(says.contains("database \"dm_no_such_database\" does not exist"), "\(says)")
        // Nothing but that line: not the pool's raw line for each retry.
        #expect(!says.contains("Connection creation failed"), "\(says)")
        let (noServer, refusedSays) = try await DemoWalkTests.run(
            arguments,
            environment: unset.merging(["DATA_MEDIATOR_DATABASE_URL": try #require(refused.string)]) { $1 }
        )
        #expect(noServer == 1)
        #expect(refusedSays.contains(":\(refused.port ?? 0) (user "), "\(refusedSays)")
        #expect(refusedSays.contains("connection refused"), "\(refusedSays)")
    }

    /// A loopback port nothing listens on, and the socket that holds it, bound and not
    /// listening (a connection to it is refused), until its caller closes it: closed at
    /// once, the port was free for another test's server to take in a full run (which then
    /// closed the connection instead of refusing it).
    static func closedPort() throws -> (port: Int, socket: Int32) {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0
            }
        }
        guard bound else {
            close(socket)
            throw ClosedPortUnavailable()
        }
        return (Int(UInt16(bigEndian: address.sin_port)), socket)
    }

    /// No loopback port could be bound.
    struct ClosedPortUnavailable: Error {}

    /// Where the log is JSON (a container's collector reads it), a refused start says why
    /// in JSON too: a `critical` record a line, a config's problems one record each; in
    /// text, as before.
    @Test func aRefusedStartIsSaidInTheLogsFormat() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dm-refusal-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appendingPathComponent("lists.yaml")
        try Data("listz: {}\nstores: 1\n".utf8).write(to: config)
        let serve = ["serve", "--port", "0", "--data-dir", folder.appendingPathComponent("data").path]
        let cases: [(arguments: [String], environment: [String: String], says: [String])] = [
            (
                serve + ["--config", config.path], [:],
                [
                    "lists.yaml:1:1: error: the config file has unknown key 'listz'", "missing 'store'",
                    "missing 'lists'", "lists.yaml:2:1: error: the config file has unknown key 'stores'",
                ]
            ),
            (serve, ["DATA_MEDIATOR_IDLE_TIMEOUT_SECONDS": "0"], ["must be from 1 to 86400"]),
            (serve, ["DATA_MEDIATOR_HOST": "not a host"], ["cannot listen on 'not a host'"]),
        ]
        for (arguments, environment, says) in cases {
            let (status, json) = try await DemoWalkTests.run(
                arguments,
                environment: environment.merging(["DATA_MEDIATOR_LOG_FORMAT": "JSON", "DATA_MEDIATOR_CONFIG": ""]) {
                    $1
                }
            )
            #expect(status == 1)
            let records = try json.split(separator: "\n").map {
                try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:]
            }
            #expect(records.count == says.count, "\(json)")
            for (record, said) in zip(records, says) {
                #expect(record["level"] as? String == "critical" && record["logger"] as? String == "data-mediator")
                #expect((record["message"] as? String)?.contains(said) == true, "\(record)")
            }
            let (_, text) = try await DemoWalkTests.run(
                arguments,
                environment: environment.merging(["DATA_MEDIATOR_LOG_FORMAT": "text", "DATA_MEDIATOR_CONFIG": ""]) {
                    $1
                }
            )
            #expect(says.allSatisfy(text.contains) && !text.contains(#""level""#), "\(text)")
        }
        // Set empty, the format is chosen as when unset: JSON, standard error being a file.
        let (_, chosen) = try await DemoWalkTests.run(
            serve,
            environment: ["DATA_MEDIATOR_LOG_FORMAT": "", "DATA_MEDIATOR_IDLE_TIMEOUT_SECONDS": "0"]
        )
        #expect(chosen.hasPrefix(#"{"time":"#) && chosen.contains(#""level":"critical""#), "\(chosen)")
    }

    /// The data folder is made only for what goes in it: with a config and the cursor
    /// secret in the environment nothing does, so a folder that cannot be made (under a
    /// file here; a read-only working directory in a container) is no refusal, and one
    /// that can is not left behind empty; without the secret its refusal says what it is
    /// for and both ways round; a demo import refused for its list leaves none either
    /// (review 92 #4).
    @Test func aConfigsStartMakesNoDataFolderForASecretItIsGiven() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dm-folder-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appendingPathComponent("lists.yaml")
        try Data(
            "store: {sqlite: s.sqlite}\nlists:\n  t:\n    table: t\n    fields: {x: string}\n    views: {v: {sort: [x]}}\n"
                .utf8
        ).write(to: config)
        let file = folder.appendingPathComponent("file.txt")
        try Data("x".utf8).write(to: file)
        let unmakeable = file.path + "/data"
        let unused = folder.appendingPathComponent("unused")
        for dataFolder in [unmakeable, unused.path] {
            let server = try await ServerProcess(
                dataDirectory: folder.appendingPathComponent("logs"),
                arguments: ["--config", config.path, "--data-dir", dataFolder],
                environment: ["DATA_MEDIATOR_CURSOR_SECRET": "abcdefghijklmnopqrstuvwxyz"]
            )
            #expect(try DemoWalkTests.curl(server.base + "/lists/t").count > 0)
            #expect(await server.stop() == 0)
        }
        #expect(!FileManager.default.fileExists(atPath: unused.path), "an empty data folder was left")
        let (refused, says) = try await DemoWalkTests.run(
            ["serve", "--port", "0", "--config", config.path, "--data-dir", unmakeable],
            environment: ["DATA_MEDIATOR_CURSOR_SECRET": ""]
        )
        #expect(refused == 1)
        #expect(
            says.contains(
                "the data folder '\(unmakeable)' cannot be made: '\(file.path)' is a file; name a folder that can be "
                    + "made (--data-dir or DATA_MEDIATOR_DATA_DIR) for the cursor secret, or set DATA_MEDIATOR_CURSOR_SECRET"
            ),
            "\(says)"
        )
        let records = folder.appendingPathComponent("n.ndjson")
        try Data(#"{"id": 1}"#.utf8).write(to: records)
        let (unknown, _) = try await DemoWalkTests.run(
            ["import", records.path, "--list", "nope", "--data-dir", unused.path],
            environment: ["DATA_MEDIATOR_CONFIG": "", "DATA_MEDIATOR_DATABASE_URL": ""]
        )
        #expect(unknown == 1)
        #expect(!FileManager.default.fileExists(atPath: unused.path), "a refused import left an empty data folder")
        // Nor one into a demo whose store `serve` has not made (it made a store of the one
        // list's table, which `serve` then never filled: probe 85).
        let (storeless, storelessSays) = try await DemoWalkTests.run(
            ["import", records.path, "--list", "transactions", "--data-dir", unused.path],
            environment: ["DATA_MEDIATOR_CONFIG": "", "DATA_MEDIATOR_DATABASE_URL": ""]
        )
        #expect(storeless == 1)
        #expect(storelessSays.contains("does not exist yet; start `data-mediator serve` once"), "\(storelessSays)")
        #expect(!FileManager.default.fileExists(atPath: unused.path), "a refused import made the demo's store")
    }

    /// A first word that is no command is refused as such, with the commands and the one it
    /// is near (ArgumentParser gave it to `serve`, the default, with `serve`'s usage).
    @Test func aMisspeltCommandIsNamed() async throws {
        let (status, says) = try await DemoWalkTests.run(["chek", "lists.yaml"])
        #expect(status == 64)
        #expect(
            says.contains(
                "data-mediator: 'chek' is no command; the commands are serve, check, healthcheck, import (serve "
                    + "when none is given). Did you mean 'check'?"
            ),
            "\(says)"
        )
        #expect(!says.contains("Usage:"), "\(says)")
        let (help, _) = try await DemoWalkTests.run(["help"])
        #expect(help == 0)
    }
}
