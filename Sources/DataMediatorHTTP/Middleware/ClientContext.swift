import Hummingbird
import NIOCore

/// The context of a request to the service: Hummingbird's, and the address the request
/// comes from, by which a client without a token is told apart (``ClientShares``).
public struct ClientContext: RequestContext, RemoteAddressRequestContext, ConnectionRequestContext {
    /// Hummingbird's own.
    public var coreContext: CoreRequestContextStorage
    /// The peer's address; nil when the request came through no socket (a test's).
    public let remoteAddress: SocketAddress?
    /// Completed when the request's connection closes.
    public let connectionClosed: EventLoopFuture<Void>?

    /// The context of a request read from a connection.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        connectionClosed = source.channel.closeFuture
    }
}

/// A request context that knows when the request's connection closes: an event stream
/// then ends at once, giving back its share of the streams, rather than at its next write.
public protocol ConnectionRequestContext {
    /// Completed when the connection closes; nil when there is none (a test's request).
    var connectionClosed: EventLoopFuture<Void>? { get }
}
