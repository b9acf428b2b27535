import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The transport over Foundation's `URLSession` (libcurl underneath on Linux).
///
/// Event streams use a data task with a delegate that feeds an `AsyncThrowingStream`:
/// `URLSession.bytes(for:)` is missing from swift-corelibs-foundation, and the delegate
/// works on every platform.
public struct URLSessionTransport: ListTransport {
    /// The server's base URL, e.g. `http://127.0.0.1:8080`.
    public let baseURL: URL
    /// How many events of a stream are held for a reader that is behind; past that the
    /// stream ends with a transport error (a session reconnects with `Last-Event-ID` and
    /// loses nothing), so a busy list cannot fill the app's memory.
    public let streamBuffer: Int
    /// The most bytes one answer's body (a page, a `/changes` answer) may hold, and one line
    /// or event of a stream: past them the answer is not read on (``ListClientError``
    /// `badAnswer`), so a broken server or proxy cannot fill the app's memory.
    public let maximumBodyBytes: Int
    private let session: URLSession
    private let pages: PageSession

    /// Creates a transport for the server at `baseURL`. Pages and changes go through a
    /// session of its own, event streams through a session of their own each, all made
    /// with `session`'s configuration (its headers, cookies, proxies and protocol classes;
    /// not its delegate: the transport's own reads what comes, up to `maximumBodyBytes`);
    /// streams without a cache, holding at most `streamBuffer` events not read yet.
    public init(
        baseURL: URL,
        session: URLSession = .shared,
        streamBuffer: Int = 1024,
        maximumBodyBytes: Int = 32 << 20
    ) {
        self.baseURL = baseURL
        self.session = session
        self.streamBuffer = max(1, streamBuffer)
        self.maximumBodyBytes = max(1, maximumBodyBytes)
        let configuration = (session.configuration.copy() as? URLSessionConfiguration) ?? .default
        pages = PageSession(configuration: configuration, maximumBytes: self.maximumBodyBytes)
    }

    /// Sends `GET path?query` through the session.
    ///
    /// - Throws: `CancellationError` when the calling task is cancelled before the answer;
    ///   ``ListClientError`` otherwise.
    public func get(
        path: String,
        query: [(String, String)],
        headers: [String: String]
    ) async throws
        -> TransportAnswer
    {
        let request = try self.request(path: path, query: query, headers: headers)
        do {
            let (http, body) = try await pages.loader.load(pages.session.dataTask(with: request))
            var headers: [String: String] = [:]
            for case (let name as String, let value as String) in http.allHeaderFields {
                headers[name.lowercased()] = value
            }
            return TransportAnswer(status: http.statusCode, body: body, headers: headers)
        } catch let error as ListClientError {
            throw error
        } catch {
            // A load whose task was cancelled (its screen went away) is a cancellation, which
            // callers pass over, not a failure to show.
            if Task.isCancelled || (error as? URLError)?.code == .cancelled { throw CancellationError() }
            throw ListClientError(.transport, message: "GET \(path): \(error.localizedDescription)")
        }
    }

    /// Opens the event stream through a data task and a delegate of its own.
    public func events(
        path: String,
        query: [(String, String)],
        headers: [String: String]
    ) -> AsyncThrowingStream<ServerSentEvent, any Error> {
        var request: URLRequest
        do {
            request = try self.request(path: path, query: query, headers: headers)
        } catch {
            return AsyncThrowingStream { $0.finish(throwing: error) }
        }
        request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
        // A stream is quiet between heartbeats; the server sends one at least every 15 s.
        request.timeoutInterval = 60
        let (stream, continuation) = AsyncThrowingStream.makeStream(
            of: ServerSentEvent.self,
            throwing: (any Error).self,
            bufferingPolicy: .bufferingOldest(streamBuffer)
        )
        let delegate = EventStreamDelegate(continuation: continuation, maximumEventBytes: maximumBodyBytes)
        // A copy: the app's session keeps its own configuration as it is.
        let configuration = (session.configuration.copy() as? URLSessionConfiguration) ?? .ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        let streamSession = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        let task = streamSession.dataTask(with: request)
        continuation.onTermination = { _ in
            task.cancel()
            streamSession.invalidateAndCancel()
        }
        task.resume()
        return stream
    }

    private func request(path: String, query: [(String, String)], headers: [String: String]) throws -> URLRequest {
        guard var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false) else {
            throw ListClientError(.transport, message: "bad base URL \(baseURL)")
        }
        components.percentEncodedPath = components.percentEncodedPath.trimmingSuffix("/") + path
        if !query.isEmpty {
            components.percentEncodedQuery = query.map { "\(Self.encode($0))=\(Self.encode($1))" }.joined(
                separator: "&"
            )
        }
        guard let url = components.url else { throw ListClientError(.transport, message: "bad path \(path)") }
        var request = URLRequest(url: url)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return request
    }

    /// Percent-encodes a query name or value (everything but unreserved characters).
    ///
    /// The unreserved characters are ASCII's (RFC 3986 2.3): `CharacterSet.alphanumerics`
    /// holds every script's letters and digits, which left `é` raw, and `URLComponents`
    /// traps on a raw one.
    static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
    )

    /// Percent-encodes an item id as one path segment.
    static func encodeSegment(_ text: String) -> String { encode(text) }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
