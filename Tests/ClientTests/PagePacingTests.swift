import DataMediatorClient
import DataMediatorTesting
import Foundation
import Synchronization
import Testing

/// A transport whose next pages (`cursor`) the server refuses with `503` and `Retry-After:
/// 1` while armed; it counts the requests that reached it.
final class BusyPagesTransport: StreamsPassThrough {
    let inner: URLSessionTransport
    let busy = Mutex(false)
    let asked = Mutex(0)

    init(_ inner: URLSessionTransport) { self.inner = inner }

    func get(path: String, query: [(String, String)], headers: [String: String]) async throws -> TransportAnswer {
        guard query.contains(where: { $0.0 == "cursor" }) else {
            return try await inner.get(path: path, query: query, headers: headers)
        }
        asked.withLock { $0 += 1 }
        guard busy.withLock({ $0 }) else { return try await inner.get(path: path, query: query, headers: headers) }
        return TransportAnswer(
            status: 503,
            body: Array(#"{"type": "/problems/not-ready", "status": 503, "detail": "Busy."}"#.utf8),
            headers: ["Content-Type": "application/problem+json", "Retry-After": "1"]
        )
    }
}

/// A page load the server refused with `Retry-After` is not asked again before it: an app
/// that calls `loadMore()` at each scroll event (as docs/client.md's example did) sent a
/// request each time (review 100 F5).
@Suite struct PagePacingTests {
    @Test func aRefusedPageIsNotAskedAgainBeforeItsRetryAfter() async throws {
        let server = try await Live.demo(100)
        defer { server.removeData() }
        let transport = BusyPagesTransport(URLSessionTransport(baseURL: try #require(URL(string: server.base))))
        let session = ListSession(configuration: Live.configuration(limit: 10), transport: transport)
        try await session.loadFirstPage()
        transport.busy.withLock { $0 = true }
        for _ in 0..<5 {
            await #expect {
                try await session.loadMore()
            } throws: { error in
                guard let error = error as? ListClientError, let wait = error.retryAfter else { return false }
                return error.status == 503 && wait > .zero && wait <= .seconds(1)
            }
        }
        #expect(transport.asked.withLock { $0 } == 1, "the refused page was asked again within its Retry-After")
        transport.busy.withLock { $0 = false }
        try await Task.sleep(for: .milliseconds(1_100))
        #expect(try await session.loadMore())
        #expect(transport.asked.withLock { $0 } == 2)
        #expect(await session.snapshot.itemCount == 20)
        #expect(await server.stop() == 0)
    }
}
