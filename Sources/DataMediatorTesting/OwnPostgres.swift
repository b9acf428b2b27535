import Foundation

/// PostgreSQL servers of a test's own (`scripts/test-postgres`), for the tests that stop,
/// pause or lag a server: doing that to the shared test server would hold every other
/// test's database (a database made or dropped waits for every server process).
public enum OwnPostgres {
    /// The repository's `scripts/test-postgres`.
    public static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/test-postgres").path

    /// Runs `scripts/test-postgres command directory`; returns its exit status.
    @discardableResult
    public static func control(_ command: String, _ directory: String) async throws -> Int32 {
        try await TestDatabase.run(script, [command, directory]).status
    }

    /// Runs `body` with the URL of a new server and its directory (for ``control(_:_:)``),
    /// and stops the server after, whatever `body` does.
    public static func withServer(
        _ body: (_ url: String, _ directory: String) async throws -> Void
    ) async throws {
        let directory = Self.directory("server")
        try await stopping([directory]) {
            let url = try await start(["start", directory])
            try await body(url, directory)
        }
    }

    /// Runs `body` with the URLs of a new primary and of its streaming standby, which
    /// applies each commit `delay` milliseconds after the primary, and the standby's
    /// directory (for ``control(_:_:)``, such as `pause`); stops both after.
    public static func withStandby(
        delay milliseconds: Int,
        _ body: (_ primary: String, _ standby: String, _ standbyDirectory: String) async throws -> Void
    ) async throws {
        let base = Self.directory("standby")
        let (primaryDirectory, standbyDirectory) = (base + "-primary", base + "-standby")
        try await stopping([standbyDirectory, primaryDirectory]) {
            let primary = try await start(["start", primaryDirectory])
            let standby = try await start(["standby", standbyDirectory, primaryDirectory, "\(milliseconds)"])
            try await body(primary, standby, standbyDirectory)
        }
    }

    private static func directory(_ kind: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("dm-\(kind)-\(UUID().uuidString)").path
    }

    /// Starts a server; returns the URL the script prints.
    private static func start(_ arguments: [String]) async throws -> String {
        let started = try await TestDatabase.run(script, arguments)
        guard started.status == 0 else {
            throw ServerProcessError.exited("scripts/test-postgres \(arguments[0]) failed: \(started.output)")
        }
        return started.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs `body`, then stops the servers in `directories`, on every path.
    private static func stopping(_ directories: [String], _ body: () async throws -> Void) async throws {
        func stop() async {
            for directory in directories { _ = try? await control("stop", directory) }
        }
        do {
            try await body()
        } catch {
            await stop()
            throw error
        }
        await stop()
    }
}
