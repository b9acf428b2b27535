import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Feeds one event stream's bytes through a ``ServerSentEventParser`` into a continuation.
final class EventStreamDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private struct State {
        var parser = ServerSentEventParser()
        var refused: (status: Int, body: [UInt8])?
    }

    private let continuation: AsyncThrowingStream<ServerSentEvent, any Error>.Continuation
    private let state = Mutex(State())

    init(continuation: AsyncThrowingStream<ServerSentEvent, any Error>.Continuation) {
        self.continuation = continuation
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let status = (dataTask.response as? HTTPURLResponse)?.statusCode ?? 200
        let events = state.withLock { state -> [ServerSentEvent] in
            guard status == 200 else {
                var refused = state.refused ?? (status, [])
                refused.body += data
                state.refused = refused
                return []
            }
            return state.parser.feed(data)
        }
        for event in events { continuation.yield(event) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let status = (task.response as? HTTPURLResponse)?.statusCode
        let refused = state.withLock { $0.refused }
        if let status, status != 200 {
            let retryAfter = (task.response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Retry-After")
            continuation.finish(
                throwing: ListClientError.answered(status, body: refused?.body ?? [], retryAfter: retryAfter)
            )
        } else if let error {
            continuation.finish(
                throwing: ListClientError(.transport, message: "event stream: \(error.localizedDescription)")
            )
        } else {
            continuation.finish()
        }
        session.finishTasksAndInvalidate()
    }
}
