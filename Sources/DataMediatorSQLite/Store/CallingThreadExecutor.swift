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
    ///
    /// `body` and its answer need not be `Sendable`: every job of the task runs on the
    /// calling thread while it waits here, so they never cross threads.
    static func run<Result>(_ body: () async throws -> Result) throws -> Result {
        try withoutActuallyEscaping(body) { body in
            let executor = CallingThreadExecutor()
            let work = Unchecked(body)
            let answer = Unchecked<Swift.Result<Result, any Error>?>(nil)
            // Awaited below before this function returns: the task does not outlive the call.
            Task(executorPreference: executor) {
                do {
                    answer.value = .success(try await work.value())
                } catch {
                    answer.value = .failure(error)
                }
                executor.finished.store(true, ordering: .releasing)
                executor.wake.signal()
            }
            executor.runJobs()
            guard let result = answer.value else { preconditionFailure("the task finished without an answer") }
            return try result.get()
        }
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

/// A value handed to the task of ``CallingThreadExecutor/run(_:)`` and back.
///
/// `@unchecked Sendable`: the task runs on the thread that made the value and waits in
/// `run` until the task has finished, so the value is only used on that thread, one use at
/// a time (the semaphore's signal and wait order the task's write before the read).
private final class Unchecked<Value>: @unchecked Sendable {
    var value: Value

    init(_ value: Value) {
        self.value = value
    }
}
