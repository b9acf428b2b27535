import Foundation
import UnixSignals

/// What an import says when it is stopped (SIGINT from a terminal's Ctrl-C, SIGTERM from a
/// supervisor): which of its records are stored, where it died before without a word
/// (review 106 #4: an interrupted `--skip-bad` import had committed two batches and said
/// nothing of them).
enum ImportInterrupt {
    /// Takes SIGINT and SIGTERM (through swift-service-lifecycle's `UnixSignalsSequence`,
    /// as `serve` takes SIGHUP) until the task answered is cancelled: each writes `said`
    /// on standard error and ends the process with 128 plus the signal's number, as its
    /// default action's status says.
    static func watch(_ said: @escaping @Sendable (String) -> String) -> Task<Void, Never> {
        Task {
            for await signal in await UnixSignalsSequence(trapping: .sigint, .sigterm) {
                let name = signal == .sigint ? "SIGINT" : "SIGTERM"
                FileHandle.standardError.write(Data(("\n" + said(name) + "\n").utf8))
                exit(128 + signal.rawValue)
            }
        }
    }
}
