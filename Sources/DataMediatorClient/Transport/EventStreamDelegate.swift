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
        /// The `Content-Type` of a `200` that is not an event stream (a captive portal's
        /// page, say), which is not parsed.
        var notAStream: String?
    }

    private let continuation: AsyncThrowingStream<ServerSentEvent, any Error>.Continuation
    private let state = Mutex(State())

    init(continuation: AsyncThrowingStream<ServerSentEvent, any Error>.Continuation) {
        self.continuation = continuation
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let response = dataTask.response as? HTTPURLResponse
        let status = response?.statusCode ?? 200
        let type = response?.value(forHTTPHeaderField: "Content-Type") ?? ""
        let isStream =
            type.lowercased().split(separator: ";").first?.trimmingCharacters(in: .whitespaces)
            == "text/event-stream"
        let events = state.withLock { state -> [ServerSentEvent] in
            guard status == 200 else {
                var refused = state.refused ?? (status, [])
                refused.body += data
                state.refused = refused
                return []
            }
            guard isStream else {
                state.notAStream = type
                return []
            }
            return state.parser.feed(data)
        }
        for event in events {
            if case .dropped = continuation.yield(event) {
                // The reader is a whole buffer behind: end here rather than hold more. The
                // events held are still read, then this error; the next stream resumes
                // after the last one applied.
                continuation.finish(
                    throwing: ListClientError(.transport, message: "event stream: the reader fell behind; reconnect")
                )
                dataTask.cancel()
                return
            }
        }
        if !isStream, status == 200 { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let status = (task.response as? HTTPURLResponse)?.statusCode
        let (refused, notAStream) = state.withLock { ($0.refused, $0.notAStream) }
        if let notAStream {
            // A transport failure, not a bad answer: the session waits before it tries again.
            continuation.finish(
                throwing: ListClientError(
                    .transport,
                    message: "event stream: the answer is '\(notAStream)', not text/event-stream"
                )
            )
        } else if let status, status != 200 {
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
