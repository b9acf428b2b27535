import DataMediator
import DataMediatorTesting
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization
import Testing

@testable import DataMediatorHTTP

/// Each client's share of the routes that cost more than a page: one more in flight is
/// `429` with `Retry-After`, for that client only.
@Suite struct ClientShareTests {
    /// Opens once, letting every waiter through.
    actor Gate {
        private var isOpen = false
        private var waiters: [CheckedContinuation<Void, Never>] = []
        private(set) var arrived = 0

        func wait() async {
            arrived += 1
            if isOpen { return }
            await withCheckedContinuation { waiters.append($0) }
        }

        func open() {
            isOpen = true
            for waiter in waiters { waiter.resume() }
            waiters = []
        }
    }

    /// The sample list, whose lookup of `held` waits at the gate.
    final class GatedProvider: DataProvider, SectionInfoProvider {
        let inner = ArrayDataProvider(items: SampleList.items(), idField: "id", views: SampleList.views)
        let gate = Gate()
        static let held = SampleList.items()[1]["id"].idString

        func window(of view: View, from start: Position?, inclusive: Bool, limit: Int) async throws -> Window {
            try await inner.window(of: view, from: start, inclusive: inclusive, limit: limit)
        }

        func window(of view: View, before start: Position?, inclusive: Bool, limit: Int) async throws -> Window {
            try await inner.window(of: view, before: start, inclusive: inclusive, limit: limit)
        }

        func locate(id: String, in view: View) async throws -> Location? {
            if id == Self.held { await gate.wait() }
            return try await inner.locate(id: id, in: view)
        }

        func currentVersion() async throws -> Int64 { 0 }

        func sectionCounts(of view: View) async throws -> SectionCounts { try await inner.sectionCounts(of: view) }
    }

    @Test func aClientOverItsShareIs429AndOthersAreServed() async throws {
        let provider = GatedProvider()
        var configuration = HTTPServerConfiguration(limits: ServerLimits(requestsPerClient: 2))
        configuration.readTokens = ["ana", "bo"]
        let sample = try HTTPTestSupport.registry(provider: provider).adapter(named: "sample")
        // A composite over the list: its pages read its child's, and count.
        let home = ListAdapter.composite(
            name: "home",
            title: "Home",
            children: [
                CompositeChild(name: "sample", content: .list(sample, view: try sample.definition.view(named: nil)))
            ],
            signer: CursorSigner(secret: SampleList.secret)
        )
        let router = buildRouter(registry: ListRegistry([sample, home]), configuration: configuration)
        let other = SampleList.items()[2]["id"].idString
        try await Application(router: router).test(.router) { client in
            let ana: HTTPFields = [.authorization: "Bearer ana"]
            // Ana's two lookups wait: her whole share.
            let waiting = (0..<2).map { _ in
                Task {
                    try await client.execute(
                        uri: "/lists/sample/items/\(GatedProvider.held)",
                        method: .get,
                        headers: ana
                    )
                }
            }
            while await provider.gate.arrived < 2 { try await Task.sleep(for: .milliseconds(5)) }
            // Her token spelt otherwise is still hers.
            let anaAgain: HTTPFields = [.authorization: "bearer   ana"]
            // Spelt otherwise, a route is still counted (the router passes over empty segments).
            for uri in [
                "/lists/sample/items/\(other)", "/lists/sample/sections", "/lists/sample/changes?since=0",
                "/lists/sample/sections/", "/lists/sample//sections", "//lists/sample/sections",
                "/lists/sample//items/\(other)", "/lists/sample/changes/?since=0", "/lists/home/items",
                "/lists/home/items/", "/lists/home/items?limit=1",
            ] {
                let refused = try await client.execute(uri: uri, method: .get, headers: anaAgain)
                #expect(refused.status == .tooManyRequests, "\(uri)")
                #expect(refused.headers[.retryAfter] == "1")
                #expect(try HTTPTestSupport.json(refused)["type"] as? String == "/problems/too-many-requests")
            }
            // Her pages are not counted, and Bo has his own share.
            #expect(try await client.execute(uri: "/lists/sample/items", method: .get, headers: ana).status == .ok)
            // A stream that resumes is held to the streams' share, not to this one.
            let resuming: HTTPFields = [.authorization: "Bearer ana", .init("Last-Event-ID")!: "0"]
            #expect(
                try await client.execute(uri: "/lists/sample/events", method: .head, headers: resuming).status == .ok
            )
            let bo: HTTPFields = [.authorization: "Bearer bo"]
            #expect(
                try await client.execute(uri: "/lists/sample/items/\(other)", method: .get, headers: bo).status == .ok
            )
            #expect(try await client.execute(uri: "/lists/home/items", method: .get, headers: bo).status == .ok)
            await provider.gate.open()
            for task in waiting { #expect(try await task.value.status == .ok) }
            // Her share is back.
            #expect(try await client.execute(uri: "/lists/sample/sections", method: .get, headers: ana).status == .ok)
        }
    }

    /// A connection answered `429` is read again only after a pause: a client that sends
    /// again at once (not after its `Retry-After`) waits, so its refusals do not take the
    /// cores from the other clients' requests; another connection is not held.
    @Test func aConnectionAnswered429IsReadAgainAfterAPause() async throws {
        let provider = GatedProvider()
        var configuration = HTTPServerConfiguration(limits: ServerLimits(requestsPerClient: 1))
        configuration.port = 0
        let app = buildApplication(
            registry: HTTPTestSupport.registry(provider: provider),
            configuration: configuration,
            logger: Logger(label: "client-share-tests")
        )
        try await app.test(.live) { client in
            let port = try #require(client.port)
            // The client's whole share: a lookup held at the gate.
            let held = Task { try await client.execute(uri: "/lists/sample/items/\(GatedProvider.held)", method: .get) }
            while await provider.gate.arrived < 1 { try await Task.sleep(for: .milliseconds(5)) }
            let flooder = try RawClient(port: port)
            let sections = "GET /lists/sample/sections HTTP/1.1\r\nHost: localhost\r\n\r\n"
            // The pause starts when the first is answered, after it was sent: timed from the send.
            let sent = ContinuousClock.now
            flooder.send(sections)
            #expect(await flooder.readAnswer(within: 5)?.hasPrefix("HTTP/1.1 429") == true)
            // Sent again at once: read half a second after the first's answer.
            flooder.send(sections)
            #expect(await flooder.readAnswer(within: 5)?.hasPrefix("HTTP/1.1 429") == true)
            #expect(ContinuousClock.now - sent >= .milliseconds(500), "answered \(ContinuousClock.now - sent) after")
            // A page on another connection is not held by the flooder's pause.
            let other = try RawClient(port: port)
            other.send("GET /lists/sample/items HTTP/1.1\r\nHost: localhost\r\n\r\n")
            #expect(await other.readAnswer(within: 5)?.hasPrefix("HTTP/1.1 200") == true)
            await provider.gate.open()
            #expect(try await held.value.status == .ok)
        }
    }

    /// A client's rate: a second's worth at once, then one more is refused until the bucket
    /// fills again, saying when; another client has its own.
    @Test func aClientsRateRefillsWithTime() {
        let clock = Mutex(ContinuousClock.now)
        let rates = ClientRates(perSecond: 4) { clock.withLock { $0 } }
        for _ in 0..<4 { #expect(rates.take(for: "ana") == nil) }
        #expect(rates.take(for: "ana") == 1, "a fifth in the same second")
        #expect(rates.take(for: "bo") == nil)
        clock.withLock { $0 += .milliseconds(250) }
        #expect(rates.take(for: "ana") == nil, "a quarter second gives back one")
        #expect(rates.take(for: "ana") == 1)
        clock.withLock { $0 += .seconds(10) }
        for _ in 0..<4 { #expect(rates.take(for: "ana") == nil) }
        #expect(rates.take(for: "ana") != nil, "more than a second's worth after a quiet while")
    }

    /// Past the clients remembered, those whose buckets are full again are forgotten at
    /// most once a second: while more clients sent requests within a second, a pass over
    /// all of them for each new one (under the lock) grew with the square of their number
    /// (review 80).
    @Test func clientsAreForgottenAtMostOnceASecond() {
        let clock = Mutex(ContinuousClock.now)
        let rates = ClientRates(perSecond: 4) { clock.withLock { $0 } }
        for index in 0..<ClientRates.remembered { #expect(rates.take(for: "c\(index)") == nil) }
        // A pass that forgets none: every bucket was drawn within the second.
        clock.withLock { $0 += .milliseconds(900) }
        #expect(rates.take(for: "new0") == nil)
        // The first buckets are full again, but the last pass was within the second.
        clock.withLock { $0 += .milliseconds(600) }
        #expect(rates.take(for: "new1") == nil)
        #expect(rates.remembering == ClientRates.remembered + 2, "no second pass within the second")
        clock.withLock { $0 += .milliseconds(500) }
        #expect(rates.take(for: "new2") == nil)
        #expect(rates.remembering < 10, "the full buckets forgotten a second later")
    }

    /// Over its rate, a client's lookups, sections and changes are `429` (its pages are not
    /// counted), with `Retry-After`; another client is served.
    @Test func aClientOverItsRateIs429() async throws {
        var configuration = HTTPServerConfiguration(limits: ServerLimits(requestRatePerClient: 3))
        configuration.readTokens = ["ana", "bo"]
        let start = ContinuousClock.now
        configuration.rateClock = { start }
        let router = buildRouter(registry: HTTPTestSupport.registry(), configuration: configuration)
        let id = SampleList.items()[2]["id"].idString
        try await Application(router: router).test(.router) { client in
            let ana: HTTPFields = [.authorization: "Bearer ana"]
            var statuses: [HTTPResponse.Status] = []
            for uri in ["/lists/sample/items/\(id)", "/lists/sample/sections", "/lists/sample/changes?since=0"] {
                statuses.append(try await client.execute(uri: uri, method: .get, headers: ana).status)
            }
            // The fourth within the second (the clock stands still).
            let refused = try await client.execute(uri: "/lists/sample/sections", method: .get, headers: ana)
            #expect(statuses == [.ok, .ok, .ok])
            #expect(refused.status == .tooManyRequests && refused.headers[.retryAfter] == "1")
            #expect((try HTTPTestSupport.json(refused)["detail"] as? String)?.contains("in the last second") == true)
            #expect(try await client.execute(uri: "/lists/sample/items", method: .get, headers: ana).status == .ok)
            // A stream that resumes replays changes as a change read does: its opening counts.
            let resuming: [(String, HTTPFields)] = [
                ("/lists/sample/events", [.authorization: "Bearer ana", .init("Last-Event-ID")!: "0"]),
                ("/lists/sample/events?since=0", ana),
            ]
            for (uri, headers) in resuming {
                #expect(try await client.execute(uri: uri, method: .head, headers: headers).status == .tooManyRequests)
            }
            let live: HTTPFields = [.authorization: "Bearer ana", .init("Last-Event-ID")!: " "]
            #expect(try await client.execute(uri: "/lists/sample/events", method: .head, headers: live).status == .ok)
            let bo: HTTPFields = [.authorization: "Bearer bo"]
            #expect(try await client.execute(uri: "/lists/sample/sections", method: .get, headers: bo).status == .ok)
        }
    }

    /// Tokens the server does not know (reads are open, so none is checked) do not make a
    /// client many: they count as their sender, whose share is used up.
    @Test func madeUpTokensDoNotMakeAClientMany() async throws {
        let configuration = HTTPServerConfiguration(limits: ServerLimits(requestsPerClient: 2))
        try await Self.whileTwoAreHeld(configuration, by: ["Bearer made-up-0", "Bearer made-up-1"]) { client in
            let refused = try await client.execute(
                uri: "/lists/sample/sections",
                method: .get,
                headers: [.authorization: "Bearer made-up-3"]
            )
            #expect(refused.status == .tooManyRequests)
        }
    }

    /// Runs `check` while two lookups sent with the `Authorization` values `holders` hold
    /// two shares at the provider's gate; then opens it, and both must be answered.
    static func whileTwoAreHeld(
        _ configuration: HTTPServerConfiguration,
        by holders: [String],
        _ check: @escaping @Sendable (any TestClientProtocol) async throws -> Void
    ) async throws {
        let provider = GatedProvider()
        let router = buildRouter(registry: HTTPTestSupport.registry(provider: provider), configuration: configuration)
        try await Application(router: router).test(.router) { client in
            let waiting = holders.map { authorization in
                Task {
                    try await client.execute(
                        uri: "/lists/sample/items/\(GatedProvider.held)",
                        method: .get,
                        headers: [.authorization: authorization]
                    )
                }
            }
            while await provider.gate.arrived < holders.count { try await Task.sleep(for: .milliseconds(5)) }
            try await check(client)
            await provider.gate.open()
            for task in waiting { #expect(try await task.value.status == .ok) }
        }
    }

    /// A JWT without `sub` (a list scoped by a team's claim) is the holder its other
    /// claims name: fresh tokens of one holder (a new `jti`, `iat`, `exp`, as each login
    /// or refresh mints) are one client, so one holder cannot take every share; a token of
    /// another holder (another team) is another client.
    @Test func freshTokensOfOneHolderWithoutASubAreOneClient() async throws {
        // "Bearer team-T-N": a verified token of team T, its N-th: its own `jti` and times.
        let claims: @Sendable (String?) async throws -> [String: JSONValue] = { authorization in
            let parts = (authorization ?? "").dropFirst("Bearer ".count).split(separator: "-")
            guard parts.count == 3, let serial = Int64(parts[2]) else { throw CancellationError() }
            return [
                "iss": .string("issuer"), "team": .string(String(parts[1])), "jti": .string("token-\(serial)"),
                "iat": .integer(1_700_000_000 + serial), "nbf": .integer(1_700_000_000 + serial),
                "exp": .integer(4_000_000_000 + serial),
            ]
        }
        let configuration = HTTPServerConfiguration(limits: ServerLimits(requestsPerClient: 2), claims: claims)
        try await Self.whileTwoAreHeld(configuration, by: ["Bearer team-7-0", "Bearer team-7-1"]) { client in
            let fresh = try await client.execute(
                uri: "/lists/sample/sections",
                method: .get,
                headers: [.authorization: "Bearer team-7-3"]
            )
            #expect(fresh.status == .tooManyRequests)
            let otherTeam = try await client.execute(
                uri: "/lists/sample/sections",
                method: .get,
                headers: [.authorization: "Bearer team-8-0"]
            )
            #expect(otherTeam.status == .ok)
        }
        let seven = ClientIdentity.holder(of: ["team": .string("7")])
        let login: [String: JSONValue] = [
            "jti": .string("a"), "exp": .integer(9), "sid": .string("s"), "nonce": .string("n"),
        ]
        #expect(ClientIdentity.holder(of: login.merging(["team": .string("7")]) { $1 }) == seven)
        #expect(ClientIdentity.holder(of: ["team": .string("8")]) != seven)
        #expect(ClientIdentity.holder(of: ["team": .integer(7)]) != seven)
    }

    @Test func theCountedRoutesAreLookupsSectionsChangesAndCompositePages() {
        // Spelled as the router reads them too: empty segments and a trailing slash pass.
        for path in [
            "/lists/a/items/1", "/lists/a/items/x/y", "/lists/a/sections", "/lists/a/changes",
            "/lists/a/sections/", "/lists/a//sections", "//lists/a/sections", "/lists/a//items/1",
            "/lists/a/changes/",
        ] {
            #expect(ClientShareMiddleware<BasicRequestContext>.isCounted(path), "\(path)")
        }
        for path in [
            "/lists/a/items", "/lists/a/items/", "/lists/a", "/lists", "/health", "/lists/a/events",
            "/lists/a/sections/x",
        ] {
            #expect(!ClientShareMiddleware<BasicRequestContext>.isCounted(path), "\(path)")
        }
        // A composite's pages, spelt as the router reads them.
        for path in ["/lists/home/items", "/lists/home//items/", "//lists/home/items", "/lists/home/items/1"] {
            #expect(ClientShareMiddleware<BasicRequestContext>.isCounted(path, composites: ["home"]), "\(path)")
        }
        for path in ["/lists/a/items", "/lists/homes/items", "/lists/home", "/lists/home/events"] {
            #expect(!ClientShareMiddleware<BasicRequestContext>.isCounted(path, composites: ["home"]), "\(path)")
        }
    }

    @Test func aHoldGivesItsShareBackWhenItGoes() {
        let shares = ClientShares(share: 2)
        var first: ClientShares.Hold? = shares.take(for: "a")
        let second = shares.take(for: "a")
        #expect(first != nil && second != nil)
        #expect(shares.take(for: "a") == nil)
        #expect(shares.take(for: "b") != nil)
        first = nil
        #expect(shares.holding("a") == 1)
        #expect(shares.take(for: "a") != nil)
        withExtendedLifetime((first, second)) {}
    }
}
