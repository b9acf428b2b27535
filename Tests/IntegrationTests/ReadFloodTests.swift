import DataMediatorTesting
import Foundation
import Synchronization
import Testing

/// One client's flood of pages on many connections, each asking for the next page as soon
/// as the last is answered, does not keep another client waiting for a whole round of its
/// connections (probe 37; a wrk flood of 100 connections held another client's page at
/// p50 147 ms and its `/health` at 114 ms).
@Suite struct ReadFloodTests {
    /// 100 connections of one client ask for pages of 20 items, one after another, on
    /// threads of their own; another client asks for `/metrics` twice in a row, ten times:
    /// in the median round, fewer than 100 pages are answered between its two answers (30-55
    /// in two runs; 210 in two runs without the yield after a turn is given).
    @Test(.timeLimit(.minutes(3))) func anotherClientWaitsForFewOfAFloodsPages() async throws {
        let server = try await ServerProcess(arguments: ["--demo-transactions", "300"])
        defer { server.removeData() }
        let stop = Atomic(false)
        let flooding = Atomic(0)
        let page = "GET /lists/transactions/items?limit=20 HTTP/1.1\r\nHost: localhost\r\n\r\n"
        let flood = try (0..<100).map { _ in try RawClient(port: server.port) }
        for connection in flood {
            Thread.detachNewThread {
                flooding.add(1, ordering: .relaxed)
                defer { flooding.subtract(1, ordering: .relaxed) }
                while !stop.load(ordering: .relaxed), connection.send(page),
                    connection.waitForAnswer(within: 30) != nil
                {}
            }
        }
        defer { stop.store(true, ordering: .relaxed) }
        try await Task.sleep(for: .seconds(2))
        let other = try RawClient(port: server.port, from: "127.0.0.2")
        func answered() async throws -> Int {
            other.send("GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n")
            return PipelinedFloodTests.pagesAnswered(try #require(await other.readAnswer(within: 60)))
        }
        var between: [Int] = []
        for _ in 0..<10 {
            let first = try await answered()
            between.append(try await answered() - first)
        }
        #expect(flooding.load(ordering: .relaxed) == 100, "the flood's connections must all be asking")
        let median = between.sorted()[between.count / 2]
        #expect(median < 100, "pages answered while the other client waited, ten rounds: \(between)")
        stop.store(true, ordering: .relaxed)
        for connection in flood { shutdown(connection.socket, Int32(SHUT_RDWR)) }
        while flooding.load(ordering: .relaxed) > 0 { try await Task.sleep(for: .milliseconds(50)) }
    }
}
