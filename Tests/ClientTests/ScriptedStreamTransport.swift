import DataMediatorClient
import Synchronization

/// A server with an empty list (see ``EmptyListTransport``) whose every event stream sends
/// `text` and ends, failing with `failure` when one is given; records when each stream was
/// opened.
final class ScriptedStreamTransport: EmptyListTransport {
    let text: String
    let failure: ListClientError?
    let openedAt = Mutex<[ContinuousClock.Instant]>([])

    /// How many streams were opened.
    var opened: Int { openedAt.withLock { $0.count } }

    init(_ text: String, endingWith failure: ListClientError? = nil) {
        self.text = text
        self.failure = failure
    }

    func events(
        path: String,
        query: [(String, String)],
        headers: [String: String]
    ) -> AsyncThrowingStream<ServerSentEvent, any Error> {
        openedAt.withLock { $0.append(.now) }
        var parser = ServerSentEventParser()
        let events = parser.feed(Array(text.utf8))
        return AsyncThrowingStream { continuation in
            for event in events { continuation.yield(event) }
            continuation.finish(throwing: failure)
        }
    }
}
