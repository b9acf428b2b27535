import DataMediatorSQL
import DataMediatorSQLite
import DataMediatorTesting
import Foundation
import HTTPTypes
import Hummingbird
import Synchronization
import Testing

@testable import DataMediator
@testable import DataMediatorHTTP

/// A stream's heartbeats while its reads fail slowly or wait. These tests count lines sent
/// while a read waits, so they run apart from the rest (`scripts/test`'s bounded suites):
/// the whole suite at once starved the stream's tasks for longer than the reads waited
/// (2026-12-04: no heartbeat in a read of 30 s, and one read in 120 s, in a full run; both
/// passed on their own).
@Suite struct EventHeartbeatTests {
    typealias Fixture = EventReloadTests.Fixture

    static func stream(
        of adapter: ListAdapter,
        from start: Int64,
        into writer: some ResponseBodyWriter & Sendable,
        heartbeat: Duration
    ) throws -> Task<Void, any Error> {
        try EventReloadTests.stream(of: adapter, from: start, into: writer, heartbeat: heartbeat)
    }
}

/// A change log whose every read fails, after `delay` (a store that answers `unavailable`
/// at its timeout).
final class SlowOutageLog: ChangeLog {
    let delay: Duration
    /// The reads that failed so far.
    let reads = Atomic<Int>(0)

    init(delay: Duration) { self.delay = delay }

    func changes(of view: View, since: Int64, limit: Int) async throws -> ChangeWindow {
        try await Task.sleep(for: delay)
        reads.add(1, ordering: .relaxed)
        throw DataMediatorError(.unavailable, "The database did not answer in time.")
    }
}

/// A body writer that counts its writes.
final class CountingWriter: ResponseBodyWriter, Sendable {
    let writes = Atomic<Int>(0)

    func write(_ buffer: ByteBuffer) async throws {
        try Task.checkCancellation()
        writes.add(1, ordering: .relaxed)
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}

extension EventHeartbeatTests {
    /// A stream whose reads fail slowly, one after each write's signal, still sends its
    /// heartbeats: the ticks queued behind those signals were held back or dropped (a
    /// probe saw 22 s of silence on a stream of 15 s heartbeats).
    @Test func aStreamWhoseReadsFailSlowlyKeepsItsHeartbeats() async throws {
        let fixture = try Fixture()
        let notes = fixture.notes
        // Each read fails after half the heartbeat's interval, or later on a loaded machine.
        let log = SlowOutageLog(delay: .milliseconds(200))
        let adapter = fixture.notes(readingChangesFrom: log)
        var version = try await notes.currentVersion()
        let writer = CountingWriter()
        let stream = try Self.stream(of: adapter, from: version, into: writer, heartbeat: .milliseconds(400))
        // A write's signal every 20 ms until six reads failed. Counted, not timed: each read
        // after the first starts half an interval or more after anything was sent, so a
        // heartbeat goes before it, however slowly a loaded machine runs the stream; the
        // ticks alone, queued behind the signals, almost never come (without the heartbeat
        // before a read: 3 heartbeats in 78 s, some 390 reads).
        let deadline = ContinuousClock.now + .seconds(120)
        while log.reads.load(ordering: .relaxed) < 6, ContinuousClock.now < deadline {
            version += 1
            notes.notifier.publish(version: version)
            try await Task.sleep(for: .milliseconds(20))
        }
        stream.cancel()
        _ = await stream.result
        let reads = log.reads.load(ordering: .relaxed)
        // The writes but the preamble.
        let heartbeats = writer.writes.load(ordering: .relaxed) - 1
        #expect(reads >= 6)
        #expect(heartbeats >= reads / 2, "\(heartbeats) heartbeats for \(reads) failed reads")
    }
}

extension EventHeartbeatTests {
    /// A read that waits longer than the heartbeat's interval (a store whose timeout is set
    /// above it, a hung primary) does not silence the stream: heartbeats go on while it
    /// waits (a probe saw 5 s without a line on a stream of 3 s heartbeats).
    @Test func aStreamSendsHeartbeatsWhileAReadWaits() async throws {
        let fixture = try Fixture()
        let writer = CountingWriter()
        // The stream's first read waits until two lines were written, or 30 s; heartbeats
        // are due every 200 ms. Counted, not timed: a loaded run once starved the stream's
        // tasks for longer than a fixed wait of 3 s, and without the heartbeats during a
        // read nothing at all is written while the stream waits for it.
        let log = HangingLog(until: 2, within: .seconds(30), writer: writer)
        let adapter = fixture.notes(readingChangesFrom: log)
        let stream = try Self.stream(
            of: adapter,
            from: try await fixture.notes.currentVersion(),
            into: writer,
            heartbeat: .milliseconds(200)
        )
        let deadline = ContinuousClock.now + .seconds(60)
        while log.writesDuringRead.load(ordering: .relaxed) < 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        stream.cancel()
        _ = await stream.result
        let heartbeats = log.writesDuringRead.load(ordering: .relaxed)
        #expect(heartbeats >= 2, "\(heartbeats) heartbeats during a read of up to 30 s")
    }
}

/// A change log whose first read waits until `until` lines were written to `writer` (or
/// `within` passed) and then fails (`unavailable`), counting those lines; later reads fail
/// at once.
final class HangingLog: ChangeLog {
    let until: Int
    let within: Duration
    let writer: CountingWriter
    /// The writes made while the first read waited, or -1 until it ended.
    let writesDuringRead = Atomic<Int>(-1)
    let reads = Atomic<Int>(0)

    init(until: Int, within: Duration, writer: CountingWriter) {
        self.until = until
        self.within = within
        self.writer = writer
    }

    func changes(of view: View, since: Int64, limit: Int) async throws -> ChangeWindow {
        if reads.add(1, ordering: .relaxed).oldValue == 0 {
            let before = writer.writes.load(ordering: .relaxed)
            let deadline = ContinuousClock.now + within
            while writer.writes.load(ordering: .relaxed) - before < until, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            writesDuringRead.store(writer.writes.load(ordering: .relaxed) - before, ordering: .relaxed)
        }
        throw DataMediatorError(.unavailable, "The database did not answer in time.")
    }
}
