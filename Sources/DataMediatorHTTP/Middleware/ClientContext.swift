import Hummingbird
import NIOCore

/// The context of a request to the service: Hummingbird's, and the address the request
/// comes from, by which a client without a token is told apart (``ClientShares``).
public struct ClientContext: RequestContext, RemoteAddressRequestContext {
    /// Hummingbird's own.
    public var coreContext: CoreRequestContextStorage
    /// The peer's address; nil when the request came through no socket (a test's).
    public let remoteAddress: SocketAddress?

    /// The context of a request read from a connection.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
