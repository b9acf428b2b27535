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
    public var connectionClosed: EventLoopFuture<Void>? { connection?.closeFuture }
    /// The request's connection.
    public let connection: (any Channel)?

    /// The context of a request read from a connection.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        connection = source.channel
    }
}

/// A request context that knows the request's connection: an event stream ends at once
/// when it closes, giving back its share of the streams, rather than at its next write,
/// and a client's turn to read passes on once its answer has left (``AnswerDrainGuard``).
public protocol ConnectionRequestContext {
    /// Completed when the connection closes; nil when there is none (a test's request).
    var connectionClosed: EventLoopFuture<Void>? { get }
    /// The connection; nil when there is none (a test's request).
    var connection: (any Channel)? { get }
}
