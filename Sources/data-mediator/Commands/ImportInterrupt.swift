import Dispatch
import Foundation

/// What an import says when it is stopped (SIGINT from a terminal's Ctrl-C, SIGTERM from a
/// supervisor): which of its records are stored, where it died before without a word
/// (review 106 #4: an interrupted `--skip-bad` import had committed two batches and said
/// nothing of them).
enum ImportInterrupt {
    /// Takes SIGINT and SIGTERM for the rest of the process: each writes `said` on
    /// standard error and ends the process with 128 plus the signal's number, as its
    /// default action's status says. The sources answered are kept by the caller.
    static func watch(_ said: @escaping @Sendable (String) -> String) -> [any DispatchSourceSignal] {
        [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")].map { number, name in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                FileHandle.standardError.write(Data(("\n" + said(name) + "\n").utf8))
                exit(128 + number)
            }
            source.resume()
            return source
        }
    }
}
