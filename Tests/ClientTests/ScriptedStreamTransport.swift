import DataMediatorClient
import Synchronization

/// A server with an empty list (see ``EmptyListTransport``) whose every event stream sends
/// `text` and ends, failing with `failure` when one is given; counts the streams opened.
final class ScriptedStreamTransport: EmptyListTransport {
    let text: String
    let failure: ListClientError?
    let opened = Mutex(0)

    init(_ text: String, endingWith failure: ListClientError? = nil) {
        self.text = text
        self.failure = failure
    }

    func events(
        path: String,
        query: [(String, String)],
        headers: [String: String]
    ) -> AsyncThrowingStream<ServerSentEvent, any Error> {
        opened.withLock { $0 += 1 }
        var parser = ServerSentEventParser()
        let events = parser.feed(Array(text.utf8))
        return AsyncThrowingStream { continuation in
            for event in events { continuation.yield(event) }
            continuation.finish(throwing: failure)
        }
    }
}
