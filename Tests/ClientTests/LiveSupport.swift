import DataMediatorClient
import DataMediatorTesting
import Foundation
import Synchronization
import Testing

/// Shared pieces of the tests against the real binary.
enum Live {
    static let token = "client-token"

    /// The demo with `count` transactions, writable with ``token``, heartbeats every second.
    static func demo(_ count: Int = 2000) async throws -> ServerProcess {
        try await ServerProcess(
            arguments: ["--demo-transactions", String(count)],
            environment: ["DATA_MEDIATOR_WRITE_TOKENS": token, "DATA_MEDIATOR_HEARTBEAT_SECONDS": "1"]
        )
    }

    static func configuration(limit: Int = 50) -> ListSessionConfiguration {
        ListSessionConfiguration(
            list: "transactions",
            view: "chronological",
            limit: limit,
            reconnectDelay: .milliseconds(100)
        )
    }

    /// A fresh walk of the whole view, over plain HTTP (``PlainWalk``): the oracle the
    /// sessions under test are compared with.
    static func walk(_ server: ServerProcess) async throws -> ListSnapshot {
        try await PlainWalk.snapshot(of: server, list: "transactions", view: "chronological", limit: 100)
    }

    /// A session on `server`'s transactions, `limit` items a page.
    static func session(on server: ServerProcess, limit: Int) throws -> ListSession {
        ListSession(baseURL: try #require(URL(string: server.base)), configuration: configuration(limit: limit))
    }

    /// When a demo transaction happened (its `created_at`).
    static func moment(of item: ListItem) throws -> Date {
        let text = try #require(item.data["created_at"]?.stringValue)
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return try #require(ISO8601DateFormatter().date(from: text) ?? fractional.date(from: text))
    }

    /// A time as a demo transaction's `created_at` (with milliseconds).
    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    /// The store's version now.
    static func version(of server: ServerProcess) async throws -> Int64 {
        try #require(Int64(try await server.json("/lists/transactions/items?limit=1")["version"] as? String ?? ""))
    }

    /// Checks every update `session` published so far (after ``ListSession/finish()``):
    /// each batch applied to the snapshot before gives the snapshot after. Returns how many.
    static func checkUpdates(of session: ListSession) async throws -> Int {
        await session.finish()
        var previous = ListSnapshot.empty(list: session.configuration.list)
        var count = 0
        for await update in session.updates {
            #expect(try update.batch.applied(to: previous, dataSource: update.snapshot) == update.snapshot.sections)
            previous = update.snapshot
            count += 1
        }
        #expect(previous.sections == (await session.snapshot).sections)
        return count
    }

    /// Makes `count` random writes (creates, replaces, patches of points and of the day,
    /// deletes) to the transactions `ids`, with days between `first` and `last`.
    static func randomWrites(
        _ count: Int,
        on server: ServerProcess,
        ids: [String],
        days: ClosedRange<Date>,
        seed: UInt64
    ) async throws {
        var random = Random(seed: seed)
        var alive = ids
        let formatter = ISO8601DateFormatter()
        func time() -> String {
            let span = days.upperBound.timeIntervalSince(days.lowerBound) + 86_400
            return formatter.string(
                from: days.lowerBound.addingTimeInterval(-43_200 + Double(random.below(Int(span))))
            )
        }
        func body() -> String {
            #"{"data": {"player": "p\#(random.below(9))", "points": \#(random.below(100)), "reason": "client test", "created_at": "\#(time())"}}"#
        }
        for _ in 0..<count {
            let id = alive[random.below(alive.count)]
            let item = "/lists/transactions/items/\(id)"
            switch random.below(20) {
            case 0..<6:
                let answer = try await send("POST", "/lists/transactions/items", body(), on: server)
                if let item = try JSONSerialization.jsonObject(with: Data(answer)) as? [String: Any],
                    let created = item["id"] as? String
                {
                    alive.append(created)
                }
            case 6..<8: _ = try await send("PUT", item, body(), on: server)
            case 8..<12: _ = try await send("PATCH", item, #"{"data": {"points": \#(random.below(1000))}}"#, on: server)
            case 12..<17: _ = try await send("PATCH", item, #"{"data": {"created_at": "\#(time())"}}"#, on: server)
            default:
                _ = try await send("DELETE", item, nil, on: server)
                alive.removeAll { $0 == id }
            }
        }
    }

    /// Sends a write as a client following API.md does: a `503` (the store busy under the
    /// suite's load, nothing stored) is sent again after its `Retry-After`, a `POST` with
    /// one `Idempotency-Key` throughout; the answer's body. Any other failure is recorded
    /// with the server's last warnings.
    static func send(
        _ method: String,
        _ path: String,
        _ body: String?,
        on server: ServerProcess
    ) async throws
        -> [UInt8]
    {
        var headers = ["Content-Type": "application/json", "Authorization": "Bearer \(token)"]
        if method == "POST" { headers["Idempotency-Key"] = UUID().uuidString }
        for attempt in 1...5 {
            let answer = try await server.send(method, path, headers: headers, body: body)
            if answer.status == 503 && attempt < 5 {
                let after = Double(answer.headers["retry-after"] ?? "") ?? 1
                try await Task.sleep(for: .seconds(min(after, 1)))
                continue
            }
            let warnings = server.log.split(separator: "\n").filter { $0.contains("warning") || $0.contains("error") }
            #expect(
                (200..<300).contains(answer.status),
                "\(method) \(path): \(String(decoding: answer.body, as: UTF8.self)) \(warnings.suffix(5))"
            )
            return answer.body
        }
        return []
    }

    /// Makes `count` random writes to the transactions `session` holds, waits until the
    /// session (followed by `follower`) is current at the last one, and stops `follower`.
    static func write(
        _ count: Int,
        on server: ServerProcess,
        followedBy session: ListSession,
        _ follower: Task<Void, any Error>,
        seed: UInt64
    ) async throws {
        let loaded = await session.snapshot
        try await randomWrites(count, on: server, ids: loaded.items.map(\.id), days: try days(of: loaded), seed: seed)
        try await wait(for: session, toReach: try await version(of: server))
        follower.cancel()
        _ = await follower.result
    }

    /// The days the loaded transactions span.
    static func days(of snapshot: ListSnapshot) throws -> ClosedRange<Date> {
        let formatter = ISO8601DateFormatter()
        let dates = snapshot.items.compactMap { $0.data["created_at"]?.stringValue }.compactMap(formatter.date(from:))
        return try #require(dates.min())...(try #require(dates.max()))
    }

    /// Waits until `session` is current at `version` (up to a minute).
    static func wait(for session: ListSession, toReach version: Int64) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while await session.snapshot.version < version, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(await session.snapshot.version >= version)
    }
}

/// A transport that cuts every event stream after a few events (a dropped connection),
/// and records the `Last-Event-ID` of every stream opened and the ids of the events it let through.
final class CuttingTransport: ListTransport {
    /// What the streams did.
    final class Record: Sendable {
        let state = Mutex<(resumedFrom: [String], delivered: [String])>(([], []))
    }

    let inner: URLSessionTransport
    let eventsPerStream: Int
    let record = Record()

    init(_ inner: URLSessionTransport, eventsPerStream: Int) {
        self.inner = inner
        self.eventsPerStream = eventsPerStream
    }

    func get(path: String, query: [(String, String)], headers: [String: String]) async throws -> TransportAnswer {
        try await inner.get(path: path, query: query, headers: headers)
    }

    func events(
        path: String,
        query: [(String, String)],
        headers: [String: String]
    ) -> AsyncThrowingStream<ServerSentEvent, any Error> {
        record.state.withLock { $0.resumedFrom.append(headers["Last-Event-ID"] ?? "") }
        let upstream = inner.events(path: path, query: query, headers: headers)
        let limit = eventsPerStream
        let record = self.record
        return AsyncThrowingStream { continuation in
            let task = Task {
                var seen = 0
                do {
                    for try await event in upstream {
                        guard ["insert", "update", "move", "delete"].contains(event.type) else { continue }
                        record.state.withLock { $0.delivered.append(event.id) }
                        continuation.yield(event)
                        seen += 1
                        if seen == limit { break }
                    }
                    continuation.finish(throwing: ListClientError(.transport, message: "cut by the test"))
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

/// A test transport that changes what `get` answers and passes event streams through to
/// the server's.
protocol StreamsPassThrough: ListTransport {
    var inner: URLSessionTransport { get }
}

extension StreamsPassThrough {
    func events(
        path: String,
        query: [(String, String)],
        headers: [String: String]
    ) -> AsyncThrowingStream<ServerSentEvent, any Error> {
        inner.events(path: path, query: query, headers: headers)
    }
}

/// A test transport that answers `get` itself and whose event streams end at once.
protocol StreamsNothing: ListTransport {}

extension StreamsNothing {
    func events(
        path: String,
        query: [(String, String)],
        headers: [String: String]
    ) -> AsyncThrowingStream<ServerSentEvent, any Error> {
        AsyncThrowingStream { $0.finish() }
    }
}

/// A test transport over an empty list (`l`, view `v`, version 1): every `GET` answers its
/// one empty page.
protocol EmptyListTransport: ListTransport {}

extension EmptyListTransport {
    func get(path: String, query: [(String, String)], headers: [String: String]) async throws -> TransportAnswer {
        let page = #"{"list":"l","view":"v","version":"1","sections":[],"next":null,"prev":null}"#
        return TransportAnswer(status: 200, body: Array(page.utf8))
    }
}
