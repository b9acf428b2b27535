import Foundation

/// Databases on the tests' PostgreSQL server (`DATA_MEDIATOR_TEST_DATABASE_URL`, which
/// `scripts/test` starts); without it the tests that ask for one fail, they do not skip.
public enum TestDatabase {
    /// A new, empty database; returns its URL.
    ///
    /// - Throws: `ServerProcessError.exited` when no server is configured or the database
    ///   cannot be created.
    public static func create() async throws -> String {
        guard let server = ProcessInfo.processInfo.environment["DATA_MEDIATOR_TEST_DATABASE_URL"], !server.isEmpty
        else {
            throw ServerProcessError.exited("DATA_MEDIATOR_TEST_DATABASE_URL is not set: run scripts/test")
        }
        let name = "dm_it_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased())"
        let created = try await run("/usr/bin/psql", [server, "-qc", "CREATE DATABASE \(name)"])
        guard created.status == 0, var parts = URLComponents(string: server) else {
            throw ServerProcessError.exited("cannot create database \(name): \(created.output)")
        }
        parts.path = "/" + name
        guard let url = parts.string else { throw ServerProcessError.exited("no URL for \(name)") }
        return url
    }

    /// Runs a program; returns its exit status and standard output.
    ///
    /// The output goes through a file, not a pipe: a server the program starts in the
    /// background may inherit the pipe and keep it open.
    public static func run(_ program: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("dm-run-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
            throw ServerProcessError.exited("cannot create \(file.path)")
        }
        defer { try? FileManager.default.removeItem(at: file) }
        let process = try ChildProcess(program, arguments, standardOutput: file.path)
        let status = await process.exit()
        return (status, (try? String(contentsOf: file, encoding: .utf8)) ?? "")
    }
}
