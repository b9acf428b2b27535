/// How a list session reaches the server: plain `GET`s for pages and changes, and a
/// Server-Sent Events stream for live changes.
///
/// ``URLSessionTransport`` is the one to use; tests wrap it to inject failures (a stream
/// cut after a few events, an answer delayed).
public protocol ListTransport: Sendable {
    /// Sends `GET path?query` with `headers`; returns the status and body of the answer,
    /// whatever the status.
    ///
    /// - Throws: ``ListClientError`` with ``ListClientError/Code/transport`` when no
    ///   answer came.
    func get(path: String, query: [(String, String)], headers: [String: String]) async throws -> TransportAnswer

    /// Opens the event stream at `path?query` with `headers` (`Last-Event-ID` among them);
    /// the events come as the server sends them, parsed.
    ///
    /// The stream throws ``ListClientError`` when the server answers other than `200`
    /// (``ListClientError/Code/historyGone`` for `410`) or the connection fails; it ends
    /// when the server closes it. Cancelling the iterating task closes the connection.
    func events(
        path: String,
        query: [(String, String)],
        headers: [String: String]
    ) -> AsyncThrowingStream<ServerSentEvent, any Error>
}

/// A server's answer: status, headers and body.
public struct TransportAnswer: Sendable {
    /// The HTTP status.
    public var status: Int
    /// The body's bytes.
    public var body: [UInt8]
    /// The headers, by lowercased name (`retry-after`).
    public var headers: [String: String]

    /// Creates an answer; header names are lowercased.
    public init(status: Int, body: [UInt8], headers: [String: String] = [:]) {
        self.status = status
        self.body = body
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }) { _, last in last }
    }
}
