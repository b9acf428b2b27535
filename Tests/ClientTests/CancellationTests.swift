import DataMediatorClient
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A load whose task is cancelled ends with `CancellationError`, which apps pass over, and
/// not with a transport error they would show.
@Suite struct CancellationTests {
    /// A socket that takes connections (the kernel completes them) and never answers; its
    /// port, and a call that closes it.
    static func silentServer() throws -> (port: Int, close: () -> Void) {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(socket >= 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(socket, raw, length) == 0 && listen(socket, 8) == 0 && getsockname(socket, raw, &length) == 0
            }
        }
        try #require(bound)
        return (Int(UInt16(bigEndian: address.sin_port)), { _ = Glibc.close(socket) })
    }

    @Test func aCancelledLoadThrowsCancellationError() async throws {
        let server = try Self.silentServer()
        defer { server.close() }
        let transport = URLSessionTransport(baseURL: try #require(URL(string: "http://127.0.0.1:\(server.port)")))
        let session = ListSession(configuration: ListSessionConfiguration(list: "transactions"), transport: transport)
        let load = Task { try await session.loadFirstPage() }
        try await Task.sleep(for: .milliseconds(300))
        load.cancel()
        await #expect(throws: CancellationError.self) { try await load.value }
    }
}
