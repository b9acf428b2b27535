import DataMediator
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// One client's live stream of a view's changes (Server-Sent Events).
///
/// The change log is the source of truth: the stream reads it from the version it starts
/// at, sends each change as an event whose `id` is its version, and waits for the next
/// write's signal (or a heartbeat tick). Reconnecting with `Last-Event-ID` therefore
/// resumes exactly after the last event seen, with nothing lost or doubled.
struct EventStream: Sendable {
    static let lastEventID = HTTPField.Name.known("Last-Event-ID")
    static let accelBuffering = HTTPField.Name.known("X-Accel-Buffering")
    /// Changes read from the log at a time while catching up.
    static let catchUpBatch = 256

    let adapter: ListAdapter
    let view: View
    let start: Int64
    /// Whether `start` came from the client (`Last-Event-ID` or `since`), which holds it
    /// already: the opening block then names no `id`, so one ahead of the store (a client
    /// of another store, or of one restored from a backup) is never echoed before the
    /// `reload` that corrects it.
    var resumed = false
    let settings: EventConfiguration
    /// Completed when the client's connection closes (``ConnectionGuard`` closes one whose
    /// client went away during a stream); nil when it cannot be told.
    var closed: EventLoopFuture<Void>? = nil
    /// When the stream ends by itself: its token's `exp` on a scoped list, so that a
    /// stream never carries a slice past the token that opened it (the client reconnects
    /// with a fresh one).
    var ends: ContinuousClock.Instant? = nil
    /// Whether the token that opened the stream still verifies, asked once a heartbeat's
    /// interval: a key taken out of the key set (how a leaked one is revoked) ends the streams
    /// its tokens opened, as it refuses their next requests. Nil for a stream opened without
    /// a token.
    var stillAccepted: (@Sendable () async -> Bool)? = nil
    /// Where a read that failed for another reason than an outage is logged (the stream
    /// ends then, and nothing else would say why).
    var logger = Logger(label: "data-mediator")
    /// Takes a turn in the client's line of reads (``ClientLines``), held while one batch
    /// is read catching up: a client's streams that resume far behind read no more at once
    /// than its pages may (32 streams each reading 4 MB batches at once held every reader
    /// of the store); nil for none. Not once live: a live read is one write's changes.
    var readTurn: (@Sendable () async throws -> ClientShares.Hold)? = nil

    /// Sends events until the client goes away, the stream falls more than
    /// ``EventConfiguration/buffer`` events behind, or its history is gone (both end with
    /// `event: reload`), or the service shuts down (`event: shutdown`; the client
    /// reconnects with `Last-Event-ID` and misses nothing). While the store cannot be read
    /// (`unavailable`: its changes, its version for a `reload`, whether a read replica
    /// caught up) it stays open, sending heartbeats, and catches up when it can.
    ///
    /// A heartbeat goes out at the ticks, before a read when half the interval passed
    /// with nothing sent (reads that fail at the store's timeout, one after each write's
    /// signal, would otherwise hold back the ticks queued behind those signals), and each
    /// interval while a read waits (the store's timeout may be longer than the interval).
    ///
    /// A read that fails for another reason (a fault, not an outage) ends the stream as a
    /// whole response, and is logged at `error` as a request's fault is: the client
    /// reconnects after `retry` with `Last-Event-ID` and misses nothing. (Thrown on, the
    /// error would cut the connection, which the framework logs only at `trace`.)
    ///
    /// Its end is logged at `info` with why and how long it ran (its request's line is
    /// written when it opens): `client gone`, `token expired`, `token revoked`, `shutdown`,
    /// `too slow`, `history gone` (both after their `reload`).
    func run(into writer: inout some ResponseBodyWriter) async throws {
        let opened = ContinuousClock.now
        do {
            let ending = try await send(into: &writer)
            logEnd(ending, since: opened)
        } catch let failure as ReadFailure {
            logger.error(
                "event stream ended: a read failed",
                metadata: [
                    "list": "\(adapter.definition.name)", "view": "\(view.name)", "reason": "read failed",
                    "duration_ms": .stringConvertible(LoggedNumber(milliseconds: ContinuousClock.now - opened)),
                    "error": "\(String(reflecting: failure.error))",
                ]
            )
        } catch {
            // A write failed: the client's connection is gone.
            logEnd(.clientGone, since: opened)
            throw error
        }
    }

    /// The input of a stream's signals, for a callback that may outlive the stream.
    private final class Wakes: Sendable {
        let input: AsyncStream<ChangeNotifier.Signal?>.Continuation

        init(_ input: AsyncStream<ChangeNotifier.Signal?>.Continuation) {
            self.input = input
        }
    }

    /// A read of the stream's that failed for another reason than the store being
    /// unavailable (or the stream being cancelled): the stream ends.
    struct ReadFailure: Error {
        let error: any Error
    }

    /// What ``run(into:)`` does, a read's fault thrown as ``ReadFailure``; returns why it
    /// ended.
    private func send(into writer: inout some ResponseBodyWriter) async throws -> Ending {
        // The notifier's signals, and nil once the client's connection closed: a stream
        // that only waits would otherwise learn it at its next write (a heartbeat away).
        let signals = adapter.notifier.subscribe(tick: settings.heartbeat)
        let (merged, input) = AsyncStream<ChangeNotifier.Signal?>.makeStream(bufferingPolicy: .bufferingNewest(4))
        let forward = Task {
            for await signal in signals { input.yield(signal) }
            input.finish()
        }
        defer { forward.cancel() }
        // Held weakly by the connection's close callback, which stays until the connection
        // closes: each stream a kept-alive connection served held its buffers till then.
        let wakes = Wakes(input)
        defer { withExtendedLifetime(wakes) {} }
        closed?.whenComplete { [weak wakes] _ in wakes?.input.yield(nil) }
        let expiry = ends.map { deadline in
            Task {
                try await Task.sleep(until: deadline)
                input.yield(nil)
            }
        }
        defer { expiry?.cancel() }
        var waiting = merged.makeAsyncIterator()
        var last = start
        var live = false
        // A live stream's opening block's `id` is the version it starts after; with no data
        // it fires no event (WHATWG HTML 9.2.6), but a client that loses the stream before
        // any event sends it as `Last-Event-ID` and misses nothing written meanwhile.
        let opening = resumed ? "" : "id: \(start)\n"
        try await writer.write(
            ByteBuffer(
                string: "retry: 2000\n\(opening): \(adapter.definition.name) \(view.name) after \(start)\n\n"
            )
        )
        var sent = ContinuousClock.now
        // When the stream's token was last found still accepted.
        var accepted = ContinuousClock.now
        // Set when the reads caught up with a write they did not hold: the next read is the
        // stream's own, as a read shared in this moment may predate the catching up.
        var caughtUp = false
        while true {
            var more = true
            var read = true
            // The changes read since the stream last waited: a live stream that reads more
            // than its buffer before it is caught up is too slow to follow.
            var readSinceWait = 0
            while more {
                try await keepAlive(&writer, sent: &sent)
                let changes: ChangeSet
                do {
                    // At most a batch at a time, live too: the changes read are held in memory
                    // with their items until sent, and items may be large (a buffer of 1,000
                    // changes of 200 KB items held 4 times that while a stalled client read).
                    let limit =
                        live ? max(1, min(Self.catchUpBatch, settings.buffer - readSinceWait)) : Self.catchUpBatch
                    let (adapter, view, since, shared) = (adapter, view, last, !caughtUp)
                    let readTurn = live ? nil : readTurn
                    changes = try await beating(&writer, sent: &sent) {
                        let turn = try await readTurn?()
                        defer { withExtendedLifetime(turn) {} }
                        return shared
                            ? try await adapter.streamChanges(of: view, since: since, limit: limit)
                            : try await adapter.changes(of: view, since: since, limit: limit)
                    }
                    caughtUp = false
                } catch let error as DataMediatorError where error.code == .historyGone {
                    // The reload's version, once the store can say it (the stream waits as
                    // for a read that failed until then).
                    let adapter = adapter
                    let current = { @Sendable in try await adapter.currentVersion() }
                    guard
                        let version = try await Self.unlessUnavailable({
                            try await beating(&writer, sent: &sent, current)
                        })
                    else {
                        read = false
                        break
                    }
                    try await writer.write(Self.reload(version: version))
                    return .historyGone
                } catch let error as DataMediatorError where error.code == .unavailable {
                    // The store cannot be read now (a database outage, a pool busy with an
                    // import): the stream stays open, its heartbeats go on, and it reads from
                    // where it was at the next write's signal or heartbeat.
                    read = false
                    break
                } catch {
                    throw Self.failure(error)
                }
                readSinceWait += changes.entries.count
                if live, changes.next != nil, readSinceWait >= settings.buffer {
                    // More is waiting than the stream may hold: it is too slow to follow.
                    try await writer.write(Self.reload(version: changes.version))
                    return .tooSlow
                }
                var buffer = ByteBuffer()
                for (index, entry) in changes.entries.enumerated() {
                    // A reload that ends the changes read stands for every change up to
                    // the version they were read at (the feed sends none after it, and the
                    // pages a client reloads are read later): its `id` says so, so a client
                    // that resumes with it is not sent again what its pages hold.
                    if entry.operation == .reload, changes.next == nil, index == changes.entries.count - 1 {
                        Self.append(Self.reloadEntry(version: max(entry.version, changes.version)), to: &buffer)
                    } else {
                        Self.append(entry, to: &buffer)
                    }
                }
                if buffer.readableBytes > 0 {
                    try await writer.write(buffer)
                    sent = .now
                }
                more = changes.next != nil
                last = more ? (changes.entries.last?.version ?? changes.version) : max(last, changes.version)
            }
            if read { live = true }
            // A write announced that the reads do not hold yet (a read replica behind its
            // primary) is read once they do, not at the next write or heartbeat.
            let announced = adapter.notifier.latestVersion
            if read, last < announced {
                try await keepAlive(&writer, sent: &sent)
                let adapter = adapter
                let catchUp = { @Sendable in try await adapter.catchUp(to: announced) }
                if try await Self.unlessUnavailable({ try await beating(&writer, sent: &sent, catchUp) }) == .caughtUp {
                    caughtUp = true
                    continue
                }
            }
            guard let next = await waiting.next() else {
                // The notifier finished every stream: the service is shutting down.
                try await writer.write(ByteBuffer(string: "event: shutdown\ndata: {}\n\n"))
                return .shutdown
            }
            guard let signal = next else {
                // The connection closed, or the token's `exp` came: said, so that a client
                // tells it from a restart.
                guard ends.map({ ContinuousClock.now >= $0 }) == true else { return .clientGone }
                try? await writer.write(
                    ByteBuffer(string: ": token expired; open the stream again with a fresh token\n\n")
                )
                return .expired
            }
            // At each tick, and a heartbeat's interval after the last look whatever woke it:
            // on a busy list, writes' signals may crowd the ticks out of the stream's small
            // buffer (review 108 #4; the interval alone skipped about every other tick,
            // review 109 #4).
            if let stillAccepted, signal == .tick || ContinuousClock.now - accepted >= settings.heartbeat {
                accepted = .now
                if await !stillAccepted() {
                    try? await writer.write(
                        ByteBuffer(string: ": token no longer accepted; open the stream again with a valid token\n\n")
                    )
                    return .revoked
                }
            }
            if signal == .tick {
                try await writer.write(Self.heartbeat)
                sent = .now
            }
        }
    }

    /// The comment that keeps a quiet stream's connection open.
    static var heartbeat: ByteBuffer { ByteBuffer(string: ": heartbeat\n\n") }

    /// Sends a heartbeat when half the interval passed since anything was `sent`.
    private func keepAlive(_ writer: inout some ResponseBodyWriter, sent: inout ContinuousClock.Instant) async throws {
        guard ContinuousClock.now - sent >= settings.heartbeat / 2 else { return }
        try await writer.write(Self.heartbeat)
        sent = .now
    }

    /// What `read` answers, with a heartbeat sent each interval after anything was `sent`
    /// while it runs: a read may wait out the store's timeout, which may be set longer than
    /// half the heartbeat's interval, and the stream's promise of a line at least every
    /// interval holds through it.
    private func beating<Value: Sendable>(
        _ writer: inout some ResponseBodyWriter,
        sent: inout ContinuousClock.Instant,
        _ read: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        let interval = settings.heartbeat
        return try await withThrowingTaskGroup(of: BeatOrRead<Value>.self) { group in
            group.addTask(operation: BeatOrRead.reading(read))
            while true {
                group.addTask(operation: BeatOrRead.beating(at: sent + interval))
                // Neither child ends without an outcome, so `next()` has one.
                switch try await group.next() {
                case .read(let value)?:
                    group.cancelAll()
                    return value
                case .beat?, nil:
                    try await writer.write(Self.heartbeat)
                    sent = .now
                }
            }
        }
    }

    /// What ends first of a stream's read and the wait for its next heartbeat.
    private enum BeatOrRead<Value: Sendable>: Sendable {
        case read(Value)
        case beat

        /// The child task that reads.
        static func reading(_ read: @escaping @Sendable () async throws -> Value) -> @Sendable () async throws -> Self {
            { .read(try await read()) }
        }

        /// The child task that waits until `due`.
        static func beating(at due: ContinuousClock.Instant) -> @Sendable () async throws -> Self {
            {
                try await Task.sleep(until: due)
                return .beat
            }
        }
    }

    /// What `read` answers, or nil while the store cannot be read (`unavailable`: a read
    /// replica that does not answer, a database outage): the stream stays open and asks
    /// again at the next signal.
    ///
    /// - Throws: what `read` throws otherwise, as ``failure(_:)`` makes it.
    private static func unlessUnavailable<Value: Sendable>(
        _ read: () async throws -> Value
    ) async throws -> Value? {
        do {
            return try await read()
        } catch let error as DataMediatorError where error.code == .unavailable {
            return nil
        } catch {
            throw failure(error)
        }
    }

    /// A read's `error` as the stream throws it on: cancellation as it is (the client
    /// went away, or the service stops), anything else a ``ReadFailure``.
    private static func failure(_ error: any Error) -> any Error {
        error is CancellationError || Task.isCancelled ? error : ReadFailure(error: error)
    }

    /// A `reload` at `version`.
    static func reloadEntry(version: Int64) -> ChangeSet.Entry {
        ChangeSet.Entry(operation: .reload, version: version, id: "", cell: nil, placement: nil)
    }

    /// One event: `id` (the version), `event` (the op), `data` (the change as JSON).
    static func append(_ entry: ChangeSet.Entry, to buffer: inout ByteBuffer) {
        buffer.writeString("id: \(entry.version)\nevent: \(entry.operation.rawValue)\ndata: ")
        buffer.writeBytes(entry.json())
        buffer.writeString("\n\n")
    }

    /// The event that tells a client to reload its pages; its `id` lets a reconnect
    /// resume from the version it reloads at.
    static func reload(version: Int64) -> ByteBuffer {
        var buffer = ByteBuffer()
        append(reloadEntry(version: version), to: &buffer)
        return buffer
    }
}
