import Foundation
import NIOCore
import NIOPosix

extension ServeCommand {
    /// Why the listening socket could not be bound, by `errno`, and the fix.
    static let listenFixes: [Int32: String] = [
        EADDRINUSE: "another program listens there; stop it, or choose another port (--port or DATA_MEDIATOR_PORT)",
        EADDRNOTAVAIL: "the address is not one of this machine's; give one it has (--host or DATA_MEDIATOR_HOST), "
            + "such as 127.0.0.1 or 0.0.0.0",
        EACCES: "not permitted (a port below 1024 needs privileges); choose a port from 1024 (--port or "
            + "DATA_MEDIATOR_PORT)",
    ]

    /// What `serve` says when binding `host`:`port` failed with `error`, or nil when
    /// `error` is no failure to bind.
    static func listenRefusal(_ error: any Error, host: String, port: Int) -> String? {
        if let error = error as? IOError, let fix = listenFixes[error.errnoCode] {
            return "serve: cannot listen on \(host):\(port): \(fix)"
        }
        guard error is SocketAddressError || error is SocketAddressError.UnknownHost else { return nil }
        return "serve: cannot listen on '\(host)': no such address; give an address of this machine "
            + "(--host or DATA_MEDIATOR_HOST), such as 127.0.0.1 or 0.0.0.0"
    }

    /// Binds `host`:`port` as the server will, and lets it go at once.
    ///
    /// The server binds only once the store's services run, after the start has made the
    /// data folder, the cursor secret and the store: a start that cannot listen (a port
    /// another program holds, an address that is none) is refused before it makes them.
    /// Another program may still take the port in between; the server's own bind says so.
    static func checkListening(host: String, port: Int, eventLoops: any EventLoopGroup) async throws {
        let channel = try await ServerBootstrap(group: eventLoops)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: host, port: port)
            .get()
        try await channel.close()
    }
}
