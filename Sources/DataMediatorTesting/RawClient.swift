import Foundation
import Glibc

/// A raw TCP client, to behave as badly as a client can.
///
/// Its reads wait on a thread of their own, not on one of the few threads every async test
/// shares: a test waiting seconds for what a server does not send would stall the others.
/// One test uses a client at a time.
public final class RawClient: @unchecked Sendable {
    /// The connection's socket.
    public let socket: Int32

    /// A connection to the server on `port` of 127.0.0.1, from `source` (another loopback
    /// address, say) when given.
    public init(port: Int, from source: String? = nil) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else { throw RawClientError("bind to \(source) failed: errno \(errno)") }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw RawClientError("connect to port \(port) failed: errno \(errno)") }
    }

    deinit { close(socket) }

    /// Sends bytes; false when the server closed the connection.
    @discardableResult
    public func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            == bytes.count
    }

    /// What the server sends within `seconds`: nil when nothing came, "" when it closed.
    public func read(within seconds: Int) async -> String? {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: self.receive(within: seconds)) }
        }
    }

    /// ``read(within:)``, waiting on the calling thread.
    private func receive(within seconds: Int) -> String? {
        var limit = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        if count < 0 { return nil }
        return String(decoding: buffer[..<count], as: UTF8.self)
    }

    /// One whole answer (head and `Content-Length` body) within `seconds`, however the
    /// server split it into segments; nil when none came whole.
    public func readAnswer(within seconds: Int) async -> String? {
        var text = ""
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            guard let more = await read(within: 1) else { continue }
            if more.isEmpty { return nil }
            text += more
            // Checked after each read, so a read that ends past the deadline still counts.
            if Self.isWhole(text) { return text }
        }
        return nil
    }

    /// ``readAnswer(within:)``, waiting on the calling thread: for a test's own threads
    /// that play many clients at once without the async tests' few shared threads.
    public func waitForAnswer(within seconds: Int) -> String? {
        var text = ""
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            guard let more = receive(within: 1) else { continue }
            if more.isEmpty { return nil }
            text += more
            if Self.isWhole(text) { return text }
        }
        return nil
    }

    /// What a client reading slowly gets of one answer: `chunk` bytes at most, then a
    /// pause, until the `Content-Length` body has come, the server closes, or `seconds`
    /// pass. Returns the head and the body's bytes received and announced. The receive
    /// buffer is set small first, so the answer waits at the server, not in this socket.
    public func readAnswerSlowly(
        chunk: Int,
        pause: Duration,
        within seconds: Int
    ) async -> (head: String, received: Int, announced: Int) {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: self.receiveSlowly(chunk: chunk, pause: pause, within: seconds))
            }
        }
    }

    /// ``readAnswerSlowly(chunk:pause:within:)``, waiting on the calling thread.
    private func receiveSlowly(chunk: Int, pause: Duration, within seconds: Int) -> (String, Int, Int) {
        var size = Int32(chunk)
        setsockopt(socket, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        var limit = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        let deadline = ContinuousClock.now + .seconds(seconds)
        let nap = Double(pause.components.seconds) + Double(pause.components.attoseconds) / 1e18
        var start: [UInt8] = []
        var head: String?
        var received = 0
        var announced = Int.max
        var buffer = [UInt8](repeating: 0, count: chunk)
        while ContinuousClock.now < deadline, received < announced {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count == 0 { break }
            guard count > 0 else { continue }
            if head != nil {
                received += count
            } else {
                start += buffer[..<count]
                if let end = Self.headEnd(start) {
                    let text = String(decoding: start[..<end], as: UTF8.self)
                    head = text
                    received = start.count - end
                    announced =
                        text.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                        .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
                }
            }
            Thread.sleep(forTimeInterval: nap)
        }
        return (head ?? String(decoding: start, as: UTF8.self), received, head == nil ? 0 : announced)
    }

    /// Where the head in `bytes` ends (past its blank line), when it has.
    private static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 3..<bytes.count
        where bytes[index - 3] == 13 && bytes[index - 2] == 10 && bytes[index - 1] == 13 && bytes[index] == 10 {
            return index + 1
        }
        return nil
    }

    /// Whether `text` holds a whole answer: its head and as many body bytes as it announced.
    private static func isWhole(_ text: String) -> Bool {
        guard let end = text.range(of: "\r\n\r\n") else { return false }
        let length =
            text[..<end.lowerBound].split(separator: "\r\n")
            .first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
        return text.utf8.count - text[..<end.upperBound].utf8.count >= length
    }
}

/// Why a ``RawClient`` could not connect.
public struct RawClientError: Error, CustomStringConvertible {
    /// What failed, with the system's error number.
    public let description: String

    init(_ description: String) { self.description = description }
}
