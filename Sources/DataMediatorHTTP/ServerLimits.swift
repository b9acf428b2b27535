import Foundation
import HTTPTypes
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import Synchronization

/// Limits that keep one bad client from hurting the rest.
public struct ServerLimits: Sendable, Hashable {
    /// Connections open at once; one more is closed as soon as it is accepted.
    public var maximumConnections: Int
    /// Connections open at once from one address; one more from it is closed as soon as it
    /// is accepted. Nil: no such cap (clients behind one proxy or load balancer share its
    /// address, so a cap is for a server that clients reach directly).
    public var connectionsPerAddress: Int?
    /// A connection that sends nothing for this long is closed: before its first request,
    /// or kept alive between requests.
    public var idleTimeout: Duration
    /// A request's head (its line and headers) must arrive whole within this long of its
    /// first byte; a client that sends it byte by byte is cut off.
    public var requestHeadTimeout: Duration
    /// A request's body must arrive whole within this long of its head; a client that sends
    /// it a byte now and then (which the idle timeout never sees) is cut off.
    public var requestBodyTimeout: Duration
    /// The largest head: each header field, and all of them with the request line.
    public var maximumHeaderBytes: Int
    /// How many item lookups, section counts and change reads one client (one verified
    /// credential, or one address) may have in flight; one more answers `429`.
    public var requestsPerClient: Int
    /// How many item lookups, section counts and change reads one client may send a second
    /// (a second's worth at once); one more answers `429`. Nil: no such bound.
    public var requestRatePerClient: Int?
    /// How many writes of one client may be in flight at once; its others wait in its own
    /// line (never refused), so another client's write waits behind this many of them at
    /// most.
    public var writesPerClient: Int
    /// How many writes one client may send a second (a second's worth at once); one more
    /// answers `429`, so one client's burst cannot move the store's versions, and with them
    /// every caller's change feed, toward `410` at the store's pace. Nil: no such bound.
    public var writeRatePerClient: Int?
    /// How many reads of lists (pages, lookups, sections, changes; not event streams) of one
    /// client may be in flight at once; its others wait in its own line (never refused), so
    /// that one client pipelining pages on many connections holds this many of the cores or
    /// the pool's connections, and another client's page waits behind this many of its
    /// requests at most, not behind all of them.
    public var readsPerClient: Int
    /// How long a shutdown lets requests in flight finish: a connection's close waits for
    /// its answers to leave until shortly before it ends (``AnswerDrainGuard``).
    public var shutdownGrace: Duration

    /// The most header fields a request may have, whatever their size: each costs the parser
    /// and the routes' lookups a slot.
    public static let maximumHeaderFields = 256

    /// Creates limits: by default 1,024 connections (no cap per address), 60 s idle, 10 s for
    /// a request head and 30 s for its body, 16 KiB of headers, 8 costly requests and 4 writes
    /// in flight per client, and a shutdown's 10 s of grace.
    public init(
        maximumConnections: Int = 1024,
        connectionsPerAddress: Int? = nil,
        idleTimeout: Duration = .seconds(60),
        requestHeadTimeout: Duration = .seconds(10),
        requestBodyTimeout: Duration = .seconds(30),
        maximumHeaderBytes: Int = 16 * 1024,
        requestsPerClient: Int = 8,
        requestRatePerClient: Int? = nil,
        writesPerClient: Int = 4,
        writeRatePerClient: Int? = nil,
        readsPerClient: Int = 8,
        shutdownGrace: Duration = .seconds(10)
    ) {
        self.shutdownGrace = shutdownGrace
        self.readsPerClient = max(1, readsPerClient)
        self.writesPerClient = max(1, writesPerClient)
        self.writeRatePerClient = writeRatePerClient.map { max(1, $0) }
        self.requestRatePerClient = requestRatePerClient.map { max(1, $0) }
        self.requestsPerClient = max(1, requestsPerClient)
        self.maximumConnections = max(1, maximumConnections)
        self.connectionsPerAddress = connectionsPerAddress.map { max(1, $0) }
        self.idleTimeout = idleTimeout
        self.requestHeadTimeout = requestHeadTimeout
        self.requestBodyTimeout = requestBodyTimeout
        self.maximumHeaderBytes = max(1024, maximumHeaderBytes)
    }

    /// The HTTP/1 server configuration with these limits, one guard per connection, which
    /// logs the requests it answers itself to `logger`, and one gate of its pipelined
    /// requests; `maximumBodySize` tells which bodies awaiting `100 Continue` are refused
    /// without it, and `corsOrigins` whose scripts may read the guards' own answers.
    func http1Configuration(
        connections: ConnectionCount,
        maximumBodySize: Int,
        corsOrigins: [String] = [],
        logger: Logger
    ) -> HTTP1Channel.Configuration {
        let limits = self
        return HTTP1Channel.Configuration(
            additionalChannelHandlers: [
                ConnectionGuard(
                    limits: limits,
                    maximumBodySize: maximumBodySize,
                    connections: connections,
                    corsOrigins: Set(corsOrigins),
                    logger: logger
                ),
                PipelinedRequestGate(),
            ],
            idleTimeout: .nanoseconds(Int64(idleTimeout.components.seconds) * 1_000_000_000),
            httpDecoderConfiguration: .init(
                maxHeaderFieldSize: maximumHeaderBytes,
                maxHeaderListSize: maximumHeaderBytes,
                maxHeaderFieldCount: Self.maximumHeaderFields
            )
        )
    }
}
