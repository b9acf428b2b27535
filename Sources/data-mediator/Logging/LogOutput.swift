import Foundation
import Synchronization

/// Where log lines go: a file descriptor written whole lines at a time, so lines of
/// concurrent tasks never interleave.
final class LogOutput: Sendable {
    /// Standard error.
    static let standardError = LogOutput(descriptor: STDERR_FILENO)

    private let descriptor: Mutex<Int32>

    private init(descriptor: Int32) {
        self.descriptor = Mutex(descriptor)
    }

    /// Writes `line` (whole, retrying short writes); a failed write is dropped, as a log
    /// line cannot be reported anywhere else.
    func write(_ line: [UInt8]) {
        descriptor.withLock { descriptor in
            line.withUnsafeBytes { buffer in
                guard let start = buffer.baseAddress else { return }
                var offset = 0
                while offset < buffer.count {
                    let written = Foundation.write(descriptor, start + offset, buffer.count - offset)
                    if written > 0 {
                        offset += written
                    } else if written < 0, errno == EINTR {
                        continue
                    } else {
                        return
                    }
                }
            }
        }
    }
}
