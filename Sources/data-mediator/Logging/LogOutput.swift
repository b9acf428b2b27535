import Foundation
import Metrics

/// Where log lines go: a file descriptor, written whole lines at a time by one thread of
/// its own, so lines of concurrent tasks never interleave and a reader of standard error
/// that stops reading (a log collector's pipe, full) holds up no request.
///
/// A line is written at once by its caller when nothing waits before it and the
/// descriptor takes it without blocking: a regular file, or a pipe or socket that `poll`
/// says has room (a line of at most `PIPE_BUF` bytes then goes whole); a hand-over to
/// the thread costs some 30 µs of CPU a line. Not a terminal, whose `poll` says writable
/// with less room than a line.
/// Otherwise it is handed to the writer, and its caller waits until it is written while the
/// writer keeps up: lines are out in the order they were logged, before the answers they
/// tell of. Once the writer has been held in one write longer than ``stuckAfter``, callers
/// no longer wait, and lines past ``queueBound`` bytes waiting are dropped and counted
/// (`data_mediator_log_lines_dropped`, as they are dropped): the service goes on answering,
/// and its log resumes when the reader does.
final class LogOutput: @unchecked Sendable {
    // Unchecked: every stored var is read and written under `condition` only.

    /// Standard error.
    static let standardError = LogOutput(descriptor: STDERR_FILENO)

    /// How long the writer may be in one write before callers stop waiting for it.
    static let stuckAfter = Duration.milliseconds(20)

    /// Where the lines go.
    private let descriptor: Int32
    /// The most bytes of lines waiting to be written.
    let queueBound: Int
    /// Guards every var below, and wakes the writer and the callers waiting for it.
    private let condition = NSCondition()
    /// The lines handed to the writer, in order, and their bytes.
    private var queue: [[UInt8]] = []
    private var queuedBytes = 0
    /// Lines handed over, and written, since the start: a caller waits for its own number.
    private var handed: UInt64 = 0
    private var written: UInt64 = 0
    /// Lines dropped since the start.
    private var droppedInAll = 0
    /// When the write in progress began; nil between writes.
    private var writeBegan: ContinuousClock.Instant?
    /// Whether the writer thread was started (at the first line handed to it).
    private var writing = false

    /// Whether lines may be written at once: the descriptor is no terminal (a file has no
    /// reader to stop; a pipe or socket is polled for room).
    private let writesAtOnce: Bool
    /// Whether the descriptor seeks, as a file does (never polled).
    private let isFile: Bool

    /// An output writing to `descriptor`, with at most `queueBound` bytes of lines waiting.
    init(descriptor: Int32, queueBound: Int = 4 << 20) {
        self.descriptor = descriptor
        self.queueBound = queueBound
        // Told apart without `stat`'s fields (which the release build's module map hides
        // from this target): a terminal says so, a file (or /dev/null) seeks, a pipe or a
        // socket does not.
        let terminal = isatty(descriptor) == 1
        isFile = !terminal && lseek(descriptor, 0, SEEK_CUR) != -1
        writesAtOnce = !terminal
    }

    /// Hands `line` to the writer and waits until it is written, unless the writer is
    /// stuck (then it is written when the reader reads again, or dropped past the bound).
    func write(_ line: [UInt8]) {
        condition.lock()
        defer { condition.unlock() }
        // At once, under the lock (lines never interleave), when that cannot block.
        if writesAtOnce, queue.isEmpty, writeBegan == nil, isFile || (line.count <= Int(PIPE_BUF) && isWritable) {
            if !writeWhole(line) {
                droppedInAll += 1
                Counter(label: "data_mediator_log_lines_dropped").increment()
            }
            return
        }
        if !writing {
            writing = true
            Thread.detachNewThread { [self] in writeForever() }
        }
        guard queuedBytes + line.count <= queueBound else {
            droppedInAll += 1
            Counter(label: "data_mediator_log_lines_dropped").increment()
            return
        }
        queue.append(line)
        queuedBytes += line.count
        handed += 1
        let mine = handed
        condition.broadcast()
        while written < mine, !isStuck {
            _ = condition.wait(until: Date(timeIntervalSinceNow: 0.01))
        }
    }

    /// Waits until every line handed over is written, for at most `bound`: what a process
    /// about to exit logged last is not lost (a reader that stopped reading is not
    /// waited for longer).
    func flush(within bound: Duration = .seconds(2)) {
        let deadline = ContinuousClock.now + bound
        condition.lock()
        defer { condition.unlock() }
        while written < handed, ContinuousClock.now < deadline {
            _ = condition.wait(until: Date(timeIntervalSinceNow: 0.01))
        }
    }

    /// How many lines were dropped since the start.
    var droppedLines: Int {
        condition.lock()
        defer { condition.unlock() }
        return droppedInAll
    }

    /// Whether the descriptor takes bytes now without blocking.
    private var isWritable: Bool {
        var poll = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
        return Glibc.poll(&poll, 1, 0) == 1 && poll.revents & Int16(POLLOUT) != 0
    }

    /// Whether the write in progress has taken longer than ``stuckAfter``; under `condition`.
    private var isStuck: Bool {
        writeBegan.map { ContinuousClock.now - $0 > Self.stuckAfter } ?? false
    }

    /// The writer's loop: takes every line waiting, writes them in one go, and says so.
    private func writeForever() {
        condition.lock()
        while true {
            while queue.isEmpty { condition.wait() }
            let lines = queue
            queue = []
            queuedBytes = 0
            writeBegan = .now
            condition.unlock()
            if !writeWhole(lines.flatMap { $0 }) {
                // The descriptor failed (closed, or made non-blocking by another): the
                // batch's lines are lost, and counted so.
                Counter(label: "data_mediator_log_lines_dropped").increment(by: lines.count)
            }
            condition.lock()
            written += UInt64(lines.count)
            writeBegan = nil
            condition.broadcast()
        }
    }

    /// Writes `bytes` whole, retrying short writes; whether it could (a failed write is
    /// dropped, as a log line cannot be reported anywhere else).
    @discardableResult
    private func writeWhole(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { buffer in
            guard let start = buffer.baseAddress else { return true }
            var offset = 0
            while offset < buffer.count {
                let count = Foundation.write(descriptor, start + offset, buffer.count - offset)
                if count > 0 {
                    offset += count
                } else if count < 0, errno == EINTR {
                    continue
                } else {
                    return false
                }
            }
            return true
        }
    }
}
