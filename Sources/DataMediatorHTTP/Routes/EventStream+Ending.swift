import DataMediator
import Logging
import Synchronization

extension EventStream {
    /// Why a stream ended, as its last line says.
    enum Ending: String {
        case clientGone = "client gone"
        case expired = "token expired"
        case shutdown
        case tooSlow = "too slow"
        case historyGone = "history gone"
        case revoked = "token revoked"
    }

    func logEnd(_ ending: Ending, since opened: ContinuousClock.Instant) {
        logger.info(
            "event stream ended",
            metadata: [
                "list": .string(adapter.definition.name), "view": .string(view.name),
                "reason": .string(ending.rawValue),
                "duration_ms": .stringConvertible(LoggedNumber(milliseconds: ContinuousClock.now - opened)),
            ]
        )
    }

    /// What logs the stream's end when its body is let go unwritten (its connection closed
    /// before the head was written: the framework never runs it, and its open line had no
    /// end line), unless ``UnwrittenEnd/began()`` said the body began.
    func unwrittenEnd() -> UnwrittenEnd {
        let opened = ContinuousClock.now
        return UnwrittenEnd { logEnd(.clientGone, since: opened) }
    }

    /// Logs a stream's end when let go before its body ran (``unwrittenEnd()``).
    final class UnwrittenEnd: Sendable {
        /// Whether the body began.
        private let ran = Atomic<Bool>(false)
        /// Logs the end.
        private let log: @Sendable () -> Void

        /// What logs the end with `log` unless the body began.
        init(_ log: @escaping @Sendable () -> Void) {
            self.log = log
        }

        /// Says the body began: ``run(into:)`` logs its end then.
        func began() { ran.store(true, ordering: .relaxed) }

        // The body closure holds this object: it goes when the framework lets the body go,
        // written or not (relaxed is enough: the last release orders the store before it).
        deinit { if !ran.load(ordering: .relaxed) { log() } }
    }
}
