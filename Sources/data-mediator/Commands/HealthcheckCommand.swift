import ArgumentParser
import Foundation
// Linux only (the service's platform): the socket calls below are Glibc's.
import Glibc

/// `data-mediator healthcheck`: asks a running service for `GET /health` and exits 0 when
/// it answers 200, 1 otherwise; for a container's `HEALTHCHECK` (the image has no curl).
struct HealthcheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "healthcheck",
        abstract: "Exit 0 when the service on HOST:PORT answers GET /health with 200, else 1."
    )

    @Option(help: "The address to ask.")
    var host: String = "127.0.0.1"

    @Option(parsing: .unconditional, help: "The port to ask (default: DATA_MEDIATOR_PORT, else 8080).")
    var port: Int?

    @Option(parsing: .unconditional, help: "Seconds to wait for the answer.")
    var timeout: Int = 3

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
        var port = port ?? 8080
        if self.port == nil, let text = environment["DATA_MEDIATOR_PORT"], !text.isEmpty {
            guard let given = Int(text) else {
                throw ValidationError("DATA_MEDIATOR_PORT must be a whole number; it is '\(text)'.")
            }
            port = given
        }
        guard (1...65_535).contains(port) else {
            throw ValidationError("The port must be from 1 to 65535; it is \(port).")
        }
        guard timeout >= 1 else { throw ValidationError("--timeout must be at least 1 second; it is \(timeout).") }
        switch Self.status(host: host, port: port, timeout: timeout) {
        case .success(200):
            print("healthy: \(host):\(port) answered 200")
        case .success(let status):
            printError("unhealthy: \(host):\(port) answered \(status)")
            throw ExitCode.failure
        case .failure(let reason):
            printError("unhealthy: \(host):\(port): \(reason.message)")
            throw ExitCode.failure
        }
    }

    /// Why a health check got no status.
    struct Failure: Error {
        let message: String
    }

    /// The status code of `GET /health` on `host:port`, over a plain socket.
    static func status(host: String, port: Int, timeout: Int) -> Result<Int, Failure> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let first = found else {
            return .failure(Failure(message: "cannot resolve \(host)"))
        }
        defer { freeaddrinfo(found) }
        let socket = Glibc.socket(first.pointee.ai_family, first.pointee.ai_socktype, first.pointee.ai_protocol)
        guard socket >= 0 else { return .failure(Failure(message: "cannot open a socket")) }
        defer { close(socket) }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        guard connect(socket, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else {
            return .failure(Failure(message: "connection refused or timed out"))
        }
        let request = Array("GET /health HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(socket, $0.baseAddress, $0.count, 0) }) == request.count else {
            return .failure(Failure(message: "cannot send the request"))
        }
        var answer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 512)
        while answer.count < 4096, !answer.contains(UInt8(ascii: "\n")) {
            let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            answer += chunk[..<count]
        }
        // "HTTP/1.1 200 OK"
        let line = String(
            decoding: answer.prefix { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") },
            as: UTF8.self
        )
        let parts = line.split(separator: " ")
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), let status = Int(parts[1]) else {
            return .failure(Failure(message: "no HTTP answer"))
        }
        return .success(status)
    }
}
