import DataMediator
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import DataMediatorHTTP

/// Each client's writes (and reads of lists) past its share wait in its own line, in order,
/// never refused, so another client's request does not wait behind all of them.
@Suite struct ClientLineTests {
    /// Counts the writes in the route, by client, and holds them until opened.
    actor Route {
        private var inside: [String: Int] = [:]
        private(set) var most: [String: Int] = [:]
        private(set) var arrived: [String] = []
        private var isOpen = false
        private var waiters: [CheckedContinuation<Void, Never>] = []

        func enter(by client: String) async {
            arrived.append(client)
            inside[client, default: 0] += 1
            most[client] = max(most[client] ?? 0, inside[client] ?? 0)
            if !isOpen { await withCheckedContinuation { waiters.append($0) } }
            inside[client, default: 0] -= 1
        }

        func open() {
            isOpen = true
            for waiter in waiters { waiter.resume() }
            waiters = []
        }
    }

    /// A router of Ana's and Bo's writes (a `POST` of items, a `PATCH` of one) into `route`,
    /// two of a client's in flight at once, and reads of items; at most `writeRate` writes a
    /// second per client, when given, by a clock that stands still.
    func router(into route: Route, writeRate: Int? = nil) -> Router<BasicRequestContext> {
        let start = ContinuousClock.now
        let router = Router()
        router.add(
            middleware: ClientShareMiddleware(
                shares: ClientShares(share: 8),
                rates: nil,
                writeLines: ClientLines(share: 2),
                writeRates: writeRate.map { ClientRates(perSecond: $0, now: { start }) },
                identity: ClientIdentity(tokens: BearerAccess(tokens: ["ana", "bo"]), verify: nil)
            )
        )
        for (path, method) in [("/lists/:list/items", HTTPRequest.Method.post), ("/lists/:list/items/:id", .patch)] {
            router.on(RouterPath(path), method: method) { request, _ -> HTTPResponse.Status in
                await route.enter(by: request.headers[.authorization] ?? "")
                return .created
            }
        }
        router.get("/lists/:list/items") { _, _ -> HTTPResponse.Status in .ok }
        return router
    }

    @Test func aClientsWritesPastItsShareWaitAndAnothersGoOn() async throws {
        let route = Route()
        let router = router(into: route)
        try await Application(router: router).test(.router) { client in
            let ana: HTTPFields = [.authorization: "Bearer ana"]
            let writes = (0..<6).map { _ in
                Task { try await client.execute(uri: "/lists/l/items", method: .post, headers: ana) }
            }
            while await route.arrived.count < 2 { try await Task.sleep(for: .milliseconds(5)) }
            // Bo's write is in the route beside Ana's two, not behind her six.
            let bo = Task {
                try await client.execute(uri: "/lists/l/items", method: .post, headers: [.authorization: "Bearer bo"])
            }
            while await route.arrived.count < 3 { try await Task.sleep(for: .milliseconds(5)) }
            try await Task.sleep(for: .milliseconds(50))
            #expect(await route.arrived == ["Bearer ana", "Bearer ana", "Bearer bo"])
            // Reads are not in the line.
            #expect(try await client.execute(uri: "/lists/l/items", method: .get, headers: ana).status == .ok)
            await route.open()
            for write in writes { #expect(try await write.value.status == .created) }
            #expect(try await bo.value.status == .created)
            #expect(await route.most["Bearer ana"] == 2)
            #expect(await route.arrived.count == 7)
        }
    }

    /// A client's reads of lists past its share wait in its line, never refused and not
    /// counted against its rate of costly requests; another client's page is answered beside
    /// them, and an event stream (which runs for as long as its client stays) is not in it.
    @Test func aClientsReadsPastItsShareWaitAndAnothersGoOn() async throws {
        let route = Route()
        let start = ContinuousClock.now
        let router = Router()
        router.add(
            middleware: ClientShareMiddleware(
                shares: ClientShares(share: 8),
                rates: ClientRates(perSecond: 1, now: { start }),
                readLines: ClientLines(share: 2),
                identity: ClientIdentity(tokens: BearerAccess(tokens: ["ana", "bo"]), verify: nil)
            )
        )
        router.get("/lists/:list/items") { request, _ -> HTTPResponse.Status in
            await route.enter(by: request.headers[.authorization] ?? "")
            return .ok
        }
        router.get("/lists/:list/events") { _, _ -> HTTPResponse.Status in .ok }
        try await Application(router: router).test(.router) { client in
            let ana: HTTPFields = [.authorization: "Bearer ana"]
            let pages = (0..<6).map { _ in
                Task { try await client.execute(uri: "/lists/l/items", method: .get, headers: ana) }
            }
            while await route.arrived.count < 2 { try await Task.sleep(for: .milliseconds(5)) }
            let bo = Task {
                try await client.execute(uri: "/lists/l/items", method: .get, headers: [.authorization: "Bearer bo"])
            }
            while await route.arrived.count < 3 { try await Task.sleep(for: .milliseconds(5)) }
            try await Task.sleep(for: .milliseconds(50))
            #expect(await route.arrived == ["Bearer ana", "Bearer ana", "Bearer bo"])
            #expect(try await client.execute(uri: "/lists/l/events", method: .get, headers: ana).status == .ok)
            await route.open()
            for page in pages { #expect(try await page.value.status == .ok) }
            #expect(try await bo.value.status == .ok)
            #expect(await route.most["Bearer ana"] == 2)
            #expect(await route.arrived.count == 7)
        }
    }

    /// Over its write rate, a client's write is `429` with `Retry-After` before it reaches
    /// the route (nothing of it is done, and it does not queue); another client writes on.
    @Test func aClientOverItsWriteRateIs429BeforeItsWriteIsDone() async throws {
        let route = Route()
        await route.open()
        let router = router(into: route, writeRate: 2)
        try await Application(router: router).test(.router) { client in
            let ana: HTTPFields = [.authorization: "Bearer ana"]
            #expect(try await client.execute(uri: "/lists/l/items", method: .post, headers: ana).status == .created)
            #expect(try await client.execute(uri: "/lists/l/items/7", method: .patch, headers: ana).status == .created)
            // The third within the second (the clock stands still).
            let refused = try await client.execute(uri: "/lists/l/items", method: .post, headers: ana)
            #expect(refused.status == .tooManyRequests && refused.headers[.retryAfter] == "1")
            #expect((try HTTPTestSupport.json(refused)["detail"] as? String)?.contains("2 writes") == true)
            #expect(await route.arrived == ["Bearer ana", "Bearer ana"], "the refused write reached the route")
            #expect(try await client.execute(uri: "/lists/l/items", method: .get, headers: ana).status == .ok)
            let bo: HTTPFields = [.authorization: "Bearer bo"]
            #expect(try await client.execute(uri: "/lists/l/items", method: .post, headers: bo).status == .created)
        }
    }

    /// A write that waited hands its turn on in the order they came; one whose client went
    /// away leaves the line without a turn.
    @Test func turnsPassInOrderAndACancelledWaiterLeaves() async throws {
        let lines = ClientLines(share: 1)
        var first: ClientShares.Hold? = try await lines.enter("ana")
        let gone = Task { try await lines.enter("ana") }
        while lines.state(of: "ana").waiting < 1 { try await Task.sleep(for: .milliseconds(2)) }
        let next = Task { _ = try await lines.enter("ana") }
        while lines.state(of: "ana").waiting < 2 { try await Task.sleep(for: .milliseconds(2)) }
        gone.cancel()
        await #expect(throws: CancellationError.self) { _ = try await gone.value }
        #expect(lines.state(of: "ana") == (1, 1))
        // Another client has its own line.
        _ = try await lines.enter("bo")
        withExtendedLifetime(first) {}
        first = nil
        try await next.value
        #expect(lines.state(of: "ana") == (0, 0))
    }
}
