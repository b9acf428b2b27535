import Foundation
import Synchronization
import Testing

@testable import data_mediator

/// Log lines go out whole and in order, each before its caller goes on while the reader
/// keeps up; a reader that stops reading (a log collector's full pipe) holds up nobody:
/// lines past the bound are dropped and counted (review 94 #1: every request, `/health`
/// and `/metrics` stalled behind the one write that waited for the reader).
@Suite struct LogOutputTests {
    final class Done: Sendable {
        let flag = Atomic<Bool>(false)
    }

    /// A pipe whose read end does not block.
    static func pipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        try #require(Glibc.pipe(&ends) == 0)
        _ = fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK)
        return (ends[0], ends[1])
    }

    /// What the pipe holds now.
    static func drain(_ descriptor: Int32) -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            guard count > 0 else { break }
            bytes += buffer.prefix(count)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func aLineIsOutWhenItsWriteReturns() throws {
        let (readEnd, writeEnd) = try Self.pipe()
        defer { close(readEnd) }
        let output = LogOutput(descriptor: writeEnd)
        for index in 0..<50 {
            output.write(Array("line \(index)\n".utf8))
            #expect(Self.drain(readEnd) == "line \(index)\n")
        }
    }

    @Test func aReaderThatStopsReadingHoldsUpNoWriter() async throws {
        let (readEnd, writeEnd) = try Self.pipe()
        defer { close(readEnd) }
        let output = LogOutput(descriptor: writeEnd, queueBound: 64 * 1024)
        let line: @Sendable (Int) -> [UInt8] = { Array("line \($0) \(String(repeating: "x", count: 190))\n".utf8) }
        let count = 2_000
        let done = Done()
        // A thread of its own: a write that blocks must not take one of the tests' few.
        Thread.detachNewThread {
            for index in 0..<count { output.write(line(index)) }
            done.flag.store(true, ordering: .relaxed)
        }
        for _ in 0..<400 where !done.flag.load(ordering: .relaxed) { try await Task.sleep(for: .milliseconds(25)) }
        let finished = done.flag.load(ordering: .relaxed)
        #expect(finished, "the writes waited for a reader that does not read")
        #expect(output.droppedLines > 0, "about 400 KB were logged into 64 KB of pipe and 64 KB of queue")
        // The reader reads again: what was kept comes out whole, in the order logged.
        var text = ""
        for _ in 0..<400 {
            text += Self.drain(readEnd)
            if text.split(separator: "\n").count + output.droppedLines >= count { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        let numbers = text.split(separator: "\n").map { $0.split(separator: " ") }
        #expect(numbers.allSatisfy { $0.count == 3 && $0[0] == "line" && $0[2].count == 190 }, "a line was cut")
        let order = numbers.compactMap { Int($0[1]) }
        #expect(order == order.sorted() && Set(order).count == order.count)
        #expect(order.count + output.droppedLines == count)
        #expect(order.count > 300, "what the pipe and the queue held was written")
    }
}
