import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The real `data-mediator` executable, started on a free loopback port with its own
/// data folder, for tests that talk to it over sockets (IntegrationTests, ClientTests).
public final class ServerProcess: @unchecked Sendable {
    // @unchecked: every stored property is set once in `init` and only read afterwards.
    /// The server's process.
    public let process: ChildProcess
    /// The server's data folder.
    public let dataDirectory: URL
    private let logFile: URL
    /// The port it listens on.
    public private(set) var port = 0

    /// The built executable: `DATA_MEDIATOR_BINARY`, else next to the test bundle.
    public static var binary: URL {
        if let path = ProcessInfo.processInfo.environment["DATA_MEDIATOR_BINARY"] {
            return URL(fileURLWithPath: path)
        }
        let tests = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return tests.deletingLastPathComponent().appendingPathComponent("data-mediator")
    }

    /// Starts the server and waits until it listens.
    public init(dataDirectory: URL? = nil, arguments: [String] = [], environment: [String: String] = [:]) async throws {
        let directory =
            dataDirectory ?? FileManager.default.temporaryDirectory.appendingPathComponent("dm-it-\(UUID().uuidString)")
        self.dataDirectory = directory
        var env = ProcessInfo.processInfo.environment
        env["DATA_MEDIATOR_CURSOR_SECRET"] = nil
        env["DATA_MEDIATOR_CONFIG"] = nil
        // The tests' walks read every item's place as fast as the machine goes, past a
        // client's default rate; a test of the rate gives its own.
        env["DATA_MEDIATOR_CLIENT_RATE"] = "0"
        env.merge(environment) { $1 }
        // The server's log goes to a file beside its data, read back to learn its port.
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let logFile = directory.appendingPathComponent("server-\(UUID().uuidString).log")
        self.logFile = logFile
        process = try ChildProcess(
            Self.binary.path,
            ["serve", "--port", "0", "--data-dir", directory.path] + arguments,
            environment: env,
            standardError: logFile.path
        )
        do {
            try await waitUntilListening()
        } catch {
            process.terminate()
            throw error
        }
    }

    /// Ends the server if a test forgot to, so no server outlives its test.
    /// A server of the demo of `transactions` transactions that takes writes with the
    /// token `t`: what most tests of the HTTP edge start.
    public static func writableDemo(transactions: Int = 10) async throws -> ServerProcess {
        try await ServerProcess(
            arguments: ["--demo-transactions", String(transactions)],
            environment: ["DATA_MEDIATOR_WRITE_TOKENS": "t"]
        )
    }

    deinit {
        process.terminate()
    }

    private func waitUntilListening() async throws {
        let deadline = ContinuousClock.now + .seconds(120)
        while true {
            // The log is read before the deadline is looked at: a test process whose threads
            // were all busy elsewhere may wake this loop long after the server listened.
            // Standard error is a file, not a terminal: one JSON object a line.
            for line in log.split(separator: "\n") {
                guard let record = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                    record["message"] as? String == "listening", let text = record["port"] as? String
                else { continue }
                port = Int(text) ?? 0
            }
            if port != 0 { return }
            guard process.isRunning else { throw ServerProcessError.exited(log) }
            guard ContinuousClock.now < deadline else { throw ServerProcessError.timedOut(log) }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Everything the server wrote to standard error so far.
    public var log: String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }

    /// The base URL, e.g. `http://127.0.0.1:8080`.
    public var base: String { "http://127.0.0.1:\(port)" }

    /// Sends SIGTERM and waits for the exit; returns the exit status.
    @discardableResult
    public func stop() async -> Int32 {
        process.terminate()
        return await process.exit()
    }

    /// Removes the data folder.
    public func removeData() {
        try? FileManager.default.removeItem(at: dataDirectory)
    }

    /// GETs a path through URLSession (libcurl underneath on Linux).
    public func get(
        _ path: String,
        headers: [String: String] = [:]
    ) async throws -> (status: Int, headers: [String: String], body: [UInt8]) {
        try await send("GET", path, headers: headers)
    }

    /// Sends a request with `method` and an optional body through URLSession.
    public func send(
        _ method: String,
        _ path: String,
        headers: [String: String] = [:],
        body: String? = nil
    ) async throws -> (status: Int, headers: [String: String], body: [UInt8]) {
        guard let url = URL(string: base + path) else { throw ServerProcessError.badAnswer("bad path \(path)") }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.httpBody = body.map { Data($0.utf8) }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await URLSession.shared.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw ServerProcessError.badAnswer("no HTTP answer") }
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { fields[name.lowercased()] = value }
        }
        return (http.statusCode, fields, Array(data))
    }

    /// GETs a path and parses the JSON object answered.
    ///
    /// - Throws: ``ServerProcessError/badAnswer(_:)`` when the status is not 200 or the body
    ///   is not a JSON object.
    public func json(_ path: String) async throws -> [String: Any] {
        let answer = try await get(path)
        guard answer.status == 200,
            let object = try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any]
        else {
            throw ServerProcessError.badAnswer(
                "GET \(path): \(answer.status) \(String(decoding: answer.body, as: UTF8.self))"
            )
        }
        return object
    }
}

/// Why a ``ServerProcess`` did not serve.
public enum ServerProcessError: Error {
    /// The process exited before listening; its log.
    case exited(String)
    /// It did not listen within two minutes; its log.
    case timedOut(String)
    /// An answer that was not what the caller asked for.
    case badAnswer(String)
}
