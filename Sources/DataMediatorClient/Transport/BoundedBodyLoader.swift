import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The delegate of a transport's page session: it collects each answer's body up to a
/// bound and fails a task past it, so a broken server or proxy that sends an endless body
/// cannot fill the app's memory (`URLSession.data(for:)` holds whatever comes until its
/// timeout, which bytes that keep coming never reach).
///
/// A delegate of the session, not of each task: swift-corelibs-foundation does not call a
/// task's own delegate.
final class BoundedBodyLoader: NSObject, URLSessionDataDelegate, Sendable {
    typealias Answer = (response: HTTPURLResponse, body: [UInt8])

    private struct Pending {
        var continuation: CheckedContinuation<Answer, any Error>
        var body: [UInt8] = []
    }

    /// The most bytes one body may hold.
    let maximumBytes: Int
    private let pending = Mutex<[Int: Pending]>([:])

    init(maximumBytes: Int) {
        self.maximumBytes = max(1, maximumBytes)
    }

    /// Runs `task` and answers its response and body; cancelling the calling task cancels it.
    func load(_ task: URLSessionDataTask) async throws -> Answer {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                pending.withLock { $0[task.taskIdentifier] = Pending(continuation: continuation) }
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let over = pending.withLock { pending -> Pending? in
            guard let held = pending[dataTask.taskIdentifier]?.body.count else { return nil }
            guard held + data.count <= maximumBytes else {
                return pending.removeValue(forKey: dataTask.taskIdentifier)
            }
            // Appended in place: a copy of the entry taken out and put back would copy the
            // whole body so far at every chunk (a 28 MB answer took 8.7 s).
            pending[dataTask.taskIdentifier]?.body.append(contentsOf: data)
            return nil
        }
        guard let over else { return }
        dataTask.cancel()
        over.continuation.resume(
            throwing: ListClientError(.badAnswer, message: "an answer over \(maximumBytes) bytes was not read on")
        )
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let entry = pending.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let error {
            entry.continuation.resume(throwing: error)
        } else if let response = task.response as? HTTPURLResponse {
            entry.continuation.resume(returning: (response, entry.body))
        } else {
            entry.continuation.resume(throwing: ListClientError(.transport, message: "no HTTP answer"))
        }
    }
}

/// Ends a transport's page session once the last copy of the transport is gone.
final class PageSession: Sendable {
    let session: URLSession
    let loader: BoundedBodyLoader

    init(configuration: URLSessionConfiguration, maximumBytes: Int) {
        loader = BoundedBodyLoader(maximumBytes: maximumBytes)
        session = URLSession(configuration: configuration, delegate: loader, delegateQueue: nil)
    }

    deinit {
        session.finishTasksAndInvalidate()
    }
}
