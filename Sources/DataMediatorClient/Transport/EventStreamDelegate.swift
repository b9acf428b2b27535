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

    /// The most bytes of a refusal's body kept for its problem.
    static let maximumRefusalBytes = 64 << 10

    private let continuation: AsyncThrowingStream<ServerSentEvent, any Error>.Continuation
    private let state: Mutex<State>

    init(continuation: AsyncThrowingStream<ServerSentEvent, any Error>.Continuation, maximumEventBytes: Int) {
        self.continuation = continuation
        state = Mutex(State(parser: ServerSentEventParser(maximumEventBytes: maximumEventBytes)))
    }

    /// Whether `response` is a `200` whose `Content-Type` is `text/event-stream`, its status,
    /// and its type.
    private static func kind(of response: URLResponse?) -> (isStream: Bool, status: Int, type: String) {
        let http = response as? HTTPURLResponse
        let type = http?.value(forHTTPHeaderField: "Content-Type") ?? ""
        let isStream =
            type.lowercased().split(separator: ";").first?.trimmingCharacters(in: .whitespaces)
            == "text/event-stream"
        return (isStream, http?.statusCode ?? 200, type)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let (isStream, status, type) = Self.kind(of: dataTask.response)
        let (events, overflowed) = state.withLock { state -> ([ServerSentEvent], Bool) in
            guard status == 200 else {
                var refused = state.refused ?? (status, [])
                refused.body += data.prefix(max(0, Self.maximumRefusalBytes - refused.body.count))
                state.refused = refused
                return ([], false)
            }
            guard isStream else {
                state.notAStream = type
                return ([], false)
            }
            let retry = state.parser.retry
            var events = state.parser.feed(data)
            if let now = state.parser.retry, now != retry {
                // The reconnection time holds from now on, before an event carries it.
                events.append(ServerSentEvent(type: "", data: "", id: state.parser.lastEventID, retry: now))
            }
            return (events, state.parser.overflowed)
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
        if overflowed {
            let limit = state.withLock { $0.parser.maximumEventBytes }
            continuation.finish(
                throwing: ListClientError(.badAnswer, message: "event stream: a line or an event over \(limit) bytes")
            )
            dataTask.cancel()
        } else if !isStream, status == 200 {
            dataTask.cancel()
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let status = (task.response as? HTTPURLResponse)?.statusCode
        let kind = Self.kind(of: task.response)
        let (refused, stored) = state.withLock { ($0.refused, $0.notAStream) }
        // A `200` of another type with no body at all never reached `didReceive`.
        let notAStream = stored ?? (task.response != nil && kind.status == 200 && !kind.isStream ? kind.type : nil)
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
