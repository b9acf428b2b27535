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

    @Option(help: "The address to ask (default: DATA_MEDIATOR_HOST, a wildcard one asked at loopback, else 127.0.0.1).")
    var host: String?

    @Option(parsing: .unconditional, help: "The port to ask (default: DATA_MEDIATOR_PORT, else 8080).")
    var port: Int?

    @Option(parsing: .unconditional, help: "Seconds to wait for the answer.")
    var timeout: Int = 3

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
        var port = port ?? 8080
        // A setting it cannot use is unhealthy (exit 1), as a container's HEALTHCHECK takes
        // only 0 and 1, with what was wrong.
        func refuse(_ why: String) -> ExitCode {
            printError("healthcheck: \(why)")
            return ExitCode.failure
        }
        if self.port == nil, let text = environment["DATA_MEDIATOR_PORT"], !text.isEmpty {
            guard let given = Int(text) else {
                throw refuse("DATA_MEDIATOR_PORT must be a whole number; it is '\(text)'.")
            }
            port = given
        }
        guard (1...65_535).contains(port) else {
            throw refuse("the port (--port or DATA_MEDIATOR_PORT) must be from 1 to 65535; it is \(port).")
        }
        guard timeout >= 1 else { throw refuse("--timeout must be at least 1 second; it is \(timeout).") }
        // Where `serve` listens (its DATA_MEDIATOR_HOST): a service on `::1` alone was asked
        // at 127.0.0.1 and said unhealthy. One listening on every address is asked at loopback.
        let listening = host ?? environment["DATA_MEDIATOR_HOST"].flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1"
        let host = ["0.0.0.0": "127.0.0.1", "::": "::1", "[::]": "::1"][listening] ?? listening
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

    /// The status code of `GET /health` on `host:port`, over a plain socket, within
    /// `timeout` seconds in all (a server that trickles its answer is given no more); each
    /// address the name resolves to is tried in turn.
    static func status(host: String, port: Int, timeout: Int) -> Result<Int, Failure> {
        let deadline = Date().addingTimeInterval(TimeInterval(timeout))
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        // An IPv6 address is given bare (`::1`) or bracketed as in a URL (`[::1]`).
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        guard getaddrinfo(bare, String(port), &hints, &found) == 0, found != nil else {
            return .failure(Failure(message: "cannot resolve \(host)"))
        }
        defer { freeaddrinfo(found) }
        var failure = Failure(message: "connection refused or timed out")
        var address = found
        while let candidate = address {
            address = candidate.pointee.ai_next
            switch ask(candidate.pointee, host: bare, port: port, until: deadline) {
            case .success(let status): return .success(status)
            case .failure(let why): failure = why
            }
            if deadline.timeIntervalSinceNow <= 0 { break }
        }
        return .failure(failure)
    }

    /// Asks one resolved address, until `deadline`.
    private static func ask(_ address: addrinfo, host: String, port: Int, until deadline: Date) -> Result<Int, Failure>
    {
        let socket = Glibc.socket(address.ai_family, address.ai_socktype, address.ai_protocol)
        guard socket >= 0 else { return .failure(Failure(message: "cannot open a socket")) }
        defer { close(socket) }
        /// Limits the socket's next call to what is left of the deadline; false when nothing is.
        func limitToDeadline() -> Bool {
            // At least a millisecond: a zero `timeval` is no limit at all.
            let left = deadline.timeIntervalSinceNow
            guard left > 0.001 else { return false }
            var limit = timeval(tv_sec: Int(left), tv_usec: Int((left - left.rounded(.down)) * 1_000_000))
            setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            return true
        }
        guard limitToDeadline(), connect(socket, address.ai_addr, address.ai_addrlen) == 0 else {
            return .failure(Failure(message: "connection refused or timed out"))
        }
        // RFC 9110 7.2: the host as in a URI, an IPv6 address in brackets, with the port.
        let authority = (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
        let request = Array("GET /health HTTP/1.1\r\nHost: \(authority)\r\nConnection: close\r\n\r\n".utf8)
        guard limitToDeadline(), request.withUnsafeBytes({ send(socket, $0.baseAddress, $0.count, 0) }) == request.count
        else {
            return .failure(Failure(message: "cannot send the request"))
        }
        var answer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 512)
        while answer.count < 4096, !answer.contains(UInt8(ascii: "\n")) {
            // `poll` bounds each wait by what is left, whatever the socket's own limits do.
            let left = Int32(max(0, deadline.timeIntervalSinceNow * 1000))
            var ready = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard left > 0, poll(&ready, 1, left) > 0 else {
                return .failure(Failure(message: "no whole answer in time"))
            }
            let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
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
