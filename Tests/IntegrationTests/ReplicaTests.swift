import DataMediator
import DataMediatorClient
import DataMediatorTesting
import Foundation
import Synchronization
import Testing

/// Several replicas of the service on one PostgreSQL database, as a load balancer would
/// use them: a client must not notice which replica answered.
@Suite struct ReplicaTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The environment of a replica of the demo on the database at `url`.
    static func environment(_ url: String, heartbeat: Int = 15) -> [String: String] {
        [
            "DATA_MEDIATOR_DATABASE_URL": url,
            "DATA_MEDIATOR_WRITE_TOKENS": "t",
            "DATA_MEDIATOR_CURSOR_SECRET": "replicas-share-this-secret-of-enough-length",
            "DATA_MEDIATOR_HEARTBEAT_SECONDS": "\(heartbeat)",
            "DATA_MEDIATOR_DATABASE_TIMEOUT_SECONDS": "2",
        ]
    }

    static let json = ["Content-Type": "application/json", "Authorization": "Bearer t"]

    static func transaction(_ player: String, points: Int, at time: String) -> String {
        #"{"data": {"player": "\#(player)", "points": \#(points), "reason": "replica test", "created_at": "\#(time)"}}"#
    }

    /// Creates a transaction on `server`; returns its id. A `503` (the store busy under the
    /// whole suite's load) is sent again after its `Retry-After` with the same
    /// `Idempotency-Key`, as API.md's clients do.
    static func create(on server: ServerProcess, _ body: String, key: String? = nil) async throws -> String {
        var headers = json
        headers["Idempotency-Key"] = key ?? UUID().uuidString
        let answer = try await request(on: server, "POST", "/lists/transactions/items", headers: headers, body: body)
        let warnings = server.log.split(separator: "\n").filter { $0.contains("warning") || $0.contains("error") }
        #expect(answer.status == 201, "\(String(decoding: answer.body, as: UTF8.self)) \(warnings.suffix(5))")
        let item = try #require(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])
        return try #require(item["id"] as? String)
    }

    /// Sets the points of the transaction `id` through `server`, expecting `200`.
    static func setPoints(of id: String, to points: Int, on server: ServerProcess) async throws {
        let patched = try await request(
            on: server,
            "PATCH",
            "/lists/transactions/items/\(id)",
            body: #"{"data": {"points": \#(points)}}"#
        )
        #expect(patched.status == 200, "\(String(decoding: patched.body, as: UTF8.self))")
    }

    /// Sends a request to `server`; a `503` (the store busy under the whole suite's load:
    /// nothing was read or stored) is sent again after its `Retry-After`, as API.md's
    /// clients do.
    static func request(
        on server: ServerProcess,
        _ method: String,
        _ path: String,
        headers: [String: String] = json,
        body: String? = nil
    ) async throws -> (status: Int, headers: [String: String], body: [UInt8]) {
        var answer = try await server.send(method, path, headers: headers, body: body)
        for _ in 0..<4 where answer.status == 503 {
            try await Task.sleep(for: .seconds(Double(answer.headers["retry-after"] ?? "") ?? 1))
            answer = try await server.send(method, path, headers: headers, body: body)
        }
        return answer
    }

    /// Every page of a view, read from `server`.
    static func walk(_ server: ServerProcess, view: String = "chronological") async throws -> WalkCheck {
        var check = WalkCheck()
        var cursor: String?
        repeat {
            let query = "view=\(view)&limit=50" + (cursor.map { "&cursor=\($0)" } ?? "")
            let answer = try await request(on: server, "GET", "/lists/transactions/items?\(query)")
            try #require(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
            let page = try Page.decode(answer.body)
            check.add(page)
            cursor = page.next
        } while cursor != nil
        return check
    }

    @Test func replicasServeOneWalkShareWritesAndStreamEachOthersWrites() async throws {
        let url = try await TestDatabase.create()
        let env = Self.environment(url)
        let a = try await ServerProcess(arguments: ["--demo-transactions", "200"], environment: env)
        let b = try await ServerProcess(arguments: ["--demo-transactions", "200"], environment: env)
        defer {
            a.removeData()
            b.removeData()
        }
        let replicas = [a, b]
        let initial = try await Self.walk(a)
        #expect(initial.violations == [] && initial.items.count == 200)
        let start = try #require(try await a.json("/lists/transactions/items?limit=1")["version"] as? String)

        // A stream on A, from before any write.
        let stream = try EventCapture(a.base, "/lists/transactions/events", since: start)
        defer { stream.stop() }

        // A walk that alternates replicas page by page, while each page is followed by a
        // write on the other replica: an insert, a content update, or a delete of an item
        // the walk has not reached yet.
        var walk = WalkCheck()
        var cursor: String?
        var deleted: Set<String> = []
        var inserted: Set<String> = []
        var writesOnB = 0
        var turn = 0
        let later = initial.items.map(\.id).reversed()
        var victims = Array(later.prefix(40))
        repeat {
            let reader = replicas[turn % 2]
            let writer = replicas[(turn + 1) % 2]
            let query = "limit=7" + (cursor.map { "&cursor=\($0)" } ?? "")
            let answer = try await Self.request(on: reader, "GET", "/lists/transactions/items?\(query)")
            try #require(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
            let page = try Page.decode(answer.body)
            walk.add(page)
            cursor = page.next
            switch turn % 3 {
            case 0:
                inserted.insert(
                    try await Self.create(on: writer, Self.transaction("ana", points: turn, at: "2030-01-01T00:00:00Z"))
                )
            case 1:
                try await Self.setPoints(of: walk.items.last?.id ?? "1", to: 99, on: writer)
            default:
                if let victim = victims.popLast(), !walk.items.contains(where: { $0.id == victim }) {
                    let answer = try await Self.request(on: writer, "DELETE", "/lists/transactions/items/\(victim)")
                    #expect(answer.status == 204, "\(String(decoding: answer.body, as: UTF8.self))")
                    deleted.insert(victim)
                }
            }
            if writer === b { writesOnB += 1 }
            turn += 1
        } while cursor != nil
        #expect(walk.violations == [])
        #expect(writesOnB > 10)
        // Every item that stayed was served once; inserts at the head came before the walk's
        // position and deletes were of items not reached yet.
        let stayed = Set(initial.items.map(\.id)).subtracting(deleted)
        #expect(Set(walk.items.map(\.id)) == stayed)
        #expect(walk.items.count == stayed.count)

        // Both replicas now serve the same list, the writes of both included.
        let afterA = try await Self.walk(a)
        let afterB = try await Self.walk(b)
        #expect(afterA.items == afterB.items)
        #expect(Set(afterA.items.map(\.id)) == stayed.union(inserted))
        // The same page has the same ETag on both, so a conditional request from A's answer
        // is answered 304 by B.
        let pageOnA = try await a.get("/lists/transactions/items?limit=5")
        let etag = try #require(pageOnA.headers["etag"])
        #expect(try await b.get("/lists/transactions/items?limit=5").headers["etag"] == etag)
        #expect(try await b.get("/lists/transactions/items?limit=5", headers: ["If-None-Match": etag]).status == 304)

        // An idempotent retry on the other replica replays the first answer.
        let body = Self.transaction("bo", points: 3, at: "2030-02-01T00:00:00Z")
        let first = try await Self.create(on: a, body, key: "replica-key-1")
        var headers = Self.json
        headers["Idempotency-Key"] = "replica-key-1"
        let retry = try await b.send("POST", "/lists/transactions/items", headers: headers, body: body)
        #expect(retry.status == 201 && retry.headers["idempotent-replayed"] == "true")
        let replayed = try #require(try JSONSerialization.jsonObject(with: Data(retry.body)) as? [String: Any])
        #expect(replayed["id"] as? String == first)

        // The stream on A carries every write of both replicas, in version order, each once;
        // it learns of B's writes through the database's notifications, long before its
        // 15-second heartbeat would look.
        let end = try #require(Int64(try await b.json("/lists/transactions/items?limit=1")["version"] as? String ?? ""))
        let since = try #require(Int64(start))
        #expect(try await stream.ids(until: end) == Array((since + 1)...end))

        // Last-Event-ID from A's stream resumes on B after exactly that event.
        let middle = since + (end - since) / 2
        let resumed = try EventCapture(b.base, "/lists/transactions/events", lastEventID: String(middle))
        defer { resumed.stop() }
        #expect(try await resumed.ids(until: end) == Array((middle + 1)...end))

        // The aggregate over the transactions (a query list) can only say that it moved.
        let scores = try await a.json("/lists/highscore/changes?since=\(start)")
        let reloads = try #require(scores["changes"] as? [[String: Any]])
        #expect(reloads.map { $0["op"] as? String } == ["reload"])
        #expect(reloads.first?["version"] as? String == String(end))

        // Every list of the demo, composites included, walks by the page rules on either replica.
        let lists = try #require(try await b.json("/lists")["lists"] as? [[String: Any]]).compactMap {
            $0["name"] as? String
        }
        #expect(lists.contains("home"))
        // A scoped list shows each caller their own items (ScopedListTests walk them).
        for name in lists where try await b.json("/lists/\(name)")["scope"] is NSNull {
            var check = WalkCheck()
            var cursor: String?
            repeat {
                let query = "limit=9" + (cursor.map { "&cursor=\($0)" } ?? "")
                let page = try Page.decode(
                    try await replicas[check.pageCount % 2].get("/lists/\(name)/items?\(query)").body
                )
                check.add(page)
                cursor = page.next
            } while cursor != nil
            #expect(check.violations == [], "\(name)")
            #expect(!check.items.isEmpty, "\(name)")
        }
        #expect(await a.stop() == 0)
        #expect(await b.stop() == 0)
    }

    @Test func aDatabaseOutageAnswers503AndTheServiceRecoversWithEveryAcknowledgedWrite() async throws {
        // A server of its own, since this test stops it.
        try await OwnPostgres.withServer { url, directory in
            try await outage(url: url) { command in
                let status = try await OwnPostgres.control(command, directory)
                #expect(status == 0, "scripts/test-postgres \(command)")
            }
        }
    }

    /// The change listener holds a connection of its own, over the setting: a pool of one
    /// serves pages and writes (it did not start: the listener held the one), and a write
    /// on another replica reaches this one's stream.
    @Test func aPoolOfOneServesWhileTheListenerHoldsItsOwn() async throws {
        let url = try await TestDatabase.create()
        let one = try await ServerProcess(
            arguments: ["--demo-transactions", "20"],
            environment: Self.environment(url).merging(["DATA_MEDIATOR_DATABASE_CONNECTIONS": "1"]) { $1 }
        )
        let other = try await ServerProcess(
            arguments: ["--demo-transactions", "20"],
            environment: Self.environment(url)
        )
        defer {
            one.removeData()
            other.removeData()
        }
        let start = try #require(try await one.json("/lists/transactions/items?limit=1")["version"] as? String)
        let stream = try EventCapture(one.base, "/lists/transactions/events", since: start)
        defer { stream.stop() }
        _ = try await Self.create(on: one, Self.transaction("uno", points: 1, at: "2030-04-01T00:00:00Z"))
        _ = try await Self.create(on: other, Self.transaction("dos", points: 2, at: "2030-04-02T00:00:00Z"))
        #expect(try await stream.reached(try #require(Int64(start)) + 2, timeout: .seconds(10)))
        #expect(try await Self.walk(one).items.count == 22)
        #expect(await one.stop() == 0)
        #expect(await other.stop() == 0)
    }

    /// Writes, takes the database down (`control("pause")`), checks the answers, brings it
    /// back (`control("resume")`) and checks that the service recovers by itself.
    func outage(url: String, control: (String) async throws -> Void) async throws {
        let server = try await ServerProcess(
            arguments: ["--demo-transactions", "50"],
            environment: Self.environment(url)
        )
        defer { server.removeData() }
        let kept = try await Self.create(on: server, Self.transaction("cy", points: 7, at: "2030-03-01T00:00:00Z"))

        try await control("pause")
        for path in ["/lists/transactions/items?limit=3", "/lists/transactions/sections", "/ready"] {
            let answer = try await server.get(path)
            #expect(answer.status == 503, "\(path)")
            #expect(answer.headers["retry-after"] != nil, "\(path)")
            #expect(answer.headers["content-type"] == "application/problem+json", "\(path)")
        }
        let refused = try await server.send(
            "POST",
            "/lists/transactions/items",
            headers: Self.json,
            body: Self.transaction("dee", points: 1, at: "2030-03-02T00:00:00Z")
        )
        #expect(refused.status == 503)

        try await control("resume")
        let deadline = ContinuousClock.now + .seconds(60)
        var ready = 0
        while ContinuousClock.now < deadline {
            ready = try await server.get("/ready").status
            if ready == 200 { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(ready == 200)
        let read = try await server.get("/lists/transactions/items/\(kept)")
        #expect(read.status == 200, "\(String(decoding: read.body, as: UTF8.self))")
        _ = try await Self.create(on: server, Self.transaction("eve", points: 2, at: "2030-03-03T00:00:00Z"))
        #expect(await server.stop() == 0)
    }
}

/// An event stream read through the client kit's transport and event-stream parser
/// (`DataMediatorClient`), for tests that watch a live stream.
final class EventCapture: Sendable {
    private final class Seen: Sendable {
        let ids = Mutex<[Int64]>([])
        let types = Mutex<[Int64: String]>([:])
    }

    private let seen: Seen
    private let reader: Task<Void, Never>

    /// Starts reading the stream at `path` of the server at `base`, from `since` or after
    /// `lastEventID`.
    init(_ base: String, _ path: String, since: String? = nil, lastEventID: String? = nil) throws {
        let transport = URLSessionTransport(baseURL: try #require(URL(string: base)))
        let events = transport.events(
            path: path,
            query: since.map { [("since", $0)] } ?? [],
            headers: lastEventID.map { ["Last-Event-ID": $0] } ?? [:]
        )
        let seen = Seen()
        reader = Task {
            do {
                // An event of no type is the transport's notice of a new `retry`, carrying
                // the stream's opening `id` (the version it starts after), not a change.
                for try await event in events where !event.type.isEmpty {
                    if let id = Int64(event.id) {
                        seen.ids.withLock { $0.append(id) }
                        seen.types.withLock { $0[id] = event.type }
                    }
                }
            } catch {
                // The stream ended; the ids read so far stay.
            }
        }
        self.seen = seen
    }

    /// The ids of the events read so far, waiting up to `timeout` for one equal to `last`.
    func ids(until last: Int64, timeout: Duration = .seconds(5)) async throws -> [Int64] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline, seen.ids.withLock({ $0.last }) != last {
            try await Task.sleep(for: .milliseconds(50))
        }
        return seen.ids.withLock { $0 }
    }

    /// Whether an event with an id of `version` or later was read, waiting up to `timeout`.
    func reached(_ version: Int64, timeout: Duration) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline, seen.ids.withLock({ ($0.max() ?? 0) < version }) {
            try await Task.sleep(for: .milliseconds(50))
        }
        return seen.ids.withLock { ($0.max() ?? 0) >= version }
    }

    /// The type of the event read with id `id` (its change's `op`), if one was.
    func type(of id: Int64) -> String? {
        seen.types.withLock { $0[id] }
    }

    /// Ends the stream.
    func stop() {
        reader.cancel()
    }
}
