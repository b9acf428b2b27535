import Dispatch
import Synchronization

/// Runs an async function to its end on the calling thread, for the shared rules of
/// `DataMediatorSQL` (written once, async, for both stores) inside GRDB's closures, which
/// are synchronous and must use their connection on GRDB's own thread.
///
/// The function runs in a task that prefers this executor, so every part of it that is not
/// isolated to an actor runs here, in ``run(_:)``'s loop on the calling thread. A SQLite
/// session's calls never suspend, so the function never leaves the thread; were it to
/// await elsewhere, the loop waits for it to come back. Swift has no API to run an async
/// function synchronously, hence this small executor.
final class CallingThreadExecutor: TaskExecutor {
    private let jobs = Mutex<[UnownedJob]>([])
    private let wake = DispatchSemaphore(value: 0)
    private let finished = Atomic<Bool>(false)

    /// Queues a job of the task; the loop in ``run(_:)`` runs it.
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
        wake.signal()
    }

    /// `body`'s answer, computed on the calling thread, which waits for it.
    static func run<Result: Sendable>(
        _ body: @escaping @Sendable () async throws -> Result
    ) throws -> Result {
        let executor = CallingThreadExecutor()
        let answer = Mutex<Swift.Result<Result, any Error>?>(nil)
        // Awaited below before this function returns: the task does not outlive the call.
        Task(executorPreference: executor) {
            let result: Swift.Result<Result, any Error>
            do {
                result = .success(try await body())
            } catch {
                result = .failure(error)
            }
            answer.withLock { $0 = result }
            executor.finished.store(true, ordering: .releasing)
            executor.wake.signal()
        }
        executor.runJobs()
        guard let result = answer.withLock({ $0 }) else {
            preconditionFailure("the task finished without an answer")
        }
        return try result.get()
    }

    /// Runs the queued jobs until the task has finished.
    private func runJobs() {
        while true {
            let batch = jobs.withLock { queued in
                defer { queued.removeAll(keepingCapacity: true) }
                return queued
            }
            for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
            if batch.isEmpty {
                if finished.load(ordering: .acquiring) { return }
                wake.wait()
            }
        }
    }
}
