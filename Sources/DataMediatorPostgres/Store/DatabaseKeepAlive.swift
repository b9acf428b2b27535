import Foundation
import Logging
import ServiceLifecycle

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns TCP keep-alive on for the process's connections to the database, so that a
/// database that went away without closing them (its host down, the network cut) is
/// noticed on an idle connection within about a minute instead of TCP's default of hours.
///
/// Hand-written because PostgresNIO 1.33 builds its connections' channels itself and
/// exposes no socket option (its pool's `keepAliveBehavior` pings with a query and arms a
/// timer per connection, which held memory under load: docs/DESIGN-NOTES.md). So the
/// options are set on the sockets: every few seconds, each TCP socket of the process whose
/// peer port is the database's gets `SO_KEEPALIVE`, `TCP_KEEPIDLE`, `TCP_KEEPINTVL` and
/// `TCP_KEEPCNT`. A socket of another program on that port would get them too, harmlessly.
public struct DatabaseKeepAlive: Service {
    /// The ports of the database servers (the primary's, the read replica's).
    public let ports: Set<Int>
    /// How often new connections are looked for.
    public let every: Duration
    private let logger: Logger

    /// Seconds of silence before the first probe.
    public static let idle: Int32 = 30
    /// Seconds between probes.
    public static let interval: Int32 = 10
    /// Probes unanswered before the connection is dropped.
    public static let count: Int32 = 3

    /// Keeps the connections to `ports` alive, looking for new ones `every` so often.
    public init(ports: Set<Int>, every: Duration = .seconds(5), logger: Logger) {
        self.ports = ports
        self.every = every
        self.logger = logger
    }

    /// Sets the options on new connections until the service group shuts down.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                let enabled = Self.enable(peerPorts: ports)
                if !enabled.isEmpty { logger.debug("TCP keep-alive on", metadata: ["connections": "\(enabled.count)"]) }
                try? await Task.sleep(for: every)
            }
        }
    }

    /// Turns keep-alive on for every TCP socket of the process connected to one of
    /// `peerPorts` that does not have it yet, and returns their descriptors.
    @discardableResult
    public static func enable(peerPorts: Set<Int>) -> [Int32] {
        var enabled: [Int32] = []
        for socket in sockets(peerPorts: peerPorts) where !socket.keepAlive {
            var on: Int32 = 1
            var idle = Self.idle
            var interval = Self.interval
            var count = Self.count
            let size = socklen_t(MemoryLayout<Int32>.size)
            guard setsockopt(socket.descriptor, SOL_SOCKET, SO_KEEPALIVE, &on, size) == 0 else { continue }
            #if os(Linux)
            _ = setsockopt(socket.descriptor, Int32(IPPROTO_TCP), TCP_KEEPIDLE, &idle, size)
            _ = setsockopt(socket.descriptor, Int32(IPPROTO_TCP), TCP_KEEPINTVL, &interval, size)
            _ = setsockopt(socket.descriptor, Int32(IPPROTO_TCP), TCP_KEEPCNT, &count, size)
            #endif
            enabled.append(socket.descriptor)
        }
        return enabled
    }

    /// The process's TCP sockets connected to one of `peerPorts`, and whether each has
    /// keep-alive on (read from the process's descriptors in `/proc/self/fd`).
    public static func sockets(peerPorts: Set<Int>) -> [(descriptor: Int32, keepAlive: Bool)] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return [] }
        var found: [(descriptor: Int32, keepAlive: Bool)] = []
        for name in names {
            guard let descriptor = Int32(name), let port = peerPort(of: descriptor), peerPorts.contains(port) else {
                continue
            }
            var type: Int32 = 0
            var on: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(descriptor, SOL_SOCKET, SO_TYPE, &type, &size) == 0, type == streamType else { continue }
            size = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(descriptor, SOL_SOCKET, SO_KEEPALIVE, &on, &size) == 0 else { continue }
            found.append((descriptor, on != 0))
        }
        return found
    }

    /// `SOCK_STREAM` as `getsockopt` reports it.
    private static var streamType: Int32 {
        #if os(Linux)
        Int32(SOCK_STREAM.rawValue)
        #else
        SOCK_STREAM
        #endif
    }

    /// The peer port of an IPv4 or IPv6 socket; nil for any other descriptor.
    private static func peerPort(of descriptor: Int32) -> Int? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let answered = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(descriptor, $0, &length) }
        }
        guard answered == 0 else { return nil }
        return withUnsafePointer(to: &storage) { pointer in
            switch Int32(pointer.pointee.ss_family) {
            case AF_INET:
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    Int(UInt16(bigEndian: $0.pointee.sin_port))
                }
            case AF_INET6:
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    Int(UInt16(bigEndian: $0.pointee.sin6_port))
                }
            default:
                nil
            }
        }
    }
}
