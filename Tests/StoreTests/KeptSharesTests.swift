import DataMediator
import Testing

@testable import DataMediatorSQL

/// Each client's share of the kept results (``KeptResults``, ``ReadOrigin``): the slices
/// one client alone asks for count against a quarter of the capacity, and a client past
/// it drops its own, never the keys other clients come back to.
@Suite struct KeptSharesTests {
    /// Asks for `key` as `client` does, `times` times.
    static func ask(_ kept: KeptResults<Int>, _ key: String, as client: String?, times: Int = 1) async throws {
        for _ in 0..<times {
            _ = try await ReadOrigin.$client.withValue(client) { try await kept.value(key, stamp: 1) { key.count } }
        }
    }

    /// The keys of `keys` kept (looked at by no client: a look does not move them).
    static func keptOf(_ kept: KeptResults<Int>, _ keys: [String]) -> [String] {
        keys.filter { kept.latest($0) != nil }
    }

    @Test func aClientAskingForNewSlicesTwiceEachDropsOnlyItsOwn() async throws {
        let kept = KeptResults<Int>(capacity: 16)
        // Three of their own each: a shared key is its asker's until the other asks too.
        let ana = (0..<3).map { "by_player#ana\($0)" }
        let bo = (0..<3).map { "by_player#bo\($0)" }
        let both = (0..<4).map { "game#\($0)" }
        for key in ana { try await Self.ask(kept, key, as: "ana", times: 2) }
        for key in bo { try await Self.ask(kept, key, as: "bo", times: 2) }
        for key in both {
            try await Self.ask(kept, key, as: "ana")
            try await Self.ask(kept, key, as: "bo")
        }
        // Each new slice asked for twice: protected, as a key clients come back to is.
        let flood = (0..<300).map { "game#flood\($0)" }
        for key in flood { try await Self.ask(kept, key, as: "eve", times: 2) }
        #expect(Self.keptOf(kept, ana + bo + both) == ana + bo + both)
        #expect(Self.keptOf(kept, flood) == Array(flood.suffix(4)), "a quarter of the capacity, its newest")
        // A slice another client asked for once, after the flood, outlives the next one.
        try await Self.ask(kept, "team#cy", as: "cy")
        for key in flood { try await Self.ask(kept, key + "b", as: "eve") }
        #expect(kept.latest("team#cy") != nil)
        #expect(Self.keptOf(kept, ana + bo + both) == ana + bo + both)
    }

    @Test func aClientPastItsShareDropsItsOwnKeyUsedLongestAgo() async throws {
        let kept = KeptResults<Int>(capacity: 16)
        let slices = (0..<5).map { "game#\($0)" }
        for key in slices.prefix(4) { try await Self.ask(kept, key, as: "ana") }
        // Used again: not the longest ago any more.
        try await Self.ask(kept, slices[0], as: "ana")
        try await Self.ask(kept, slices[4], as: "ana")
        #expect(Self.keptOf(kept, slices) == [slices[0], slices[2], slices[3], slices[4]])
    }

    @Test func aKeyAnotherClientAsksForTooIsNoOnes() async throws {
        let kept = KeptResults<Int>(capacity: 16)
        try await Self.ask(kept, "game#shared", as: "ana")
        try await Self.ask(kept, "game#shared", as: "bo")
        for index in 0..<4 { try await Self.ask(kept, "game#ana\(index)", as: "ana") }
        #expect(kept.latest("game#shared") != nil, "not counted against ana's share")
        #expect(Self.keptOf(kept, (0..<4).map { "game#ana\($0)" }).count == 4)
        // Carried to a new stamp (a write's), a key stays no one's.
        kept.advance(from: 1, to: 2) { _, value in value }
        for index in 4..<8 { try await Self.ask(kept, "game#ana\(index)", as: "ana") }
        #expect(kept.latest("game#shared") != nil)
    }

    @Test func aViewsOwnKeysAndTheServicesReadsCountAgainstNoShare() async throws {
        let kept = KeptResults<Int>(capacity: 16)
        let views = (0..<10).map { "view\($0)" }
        for key in views { try await Self.ask(kept, key, as: "ana") }
        #expect(Self.keptOf(kept, views) == views, "as many as the config has")
        let slices = (0..<10).map { "game#\($0)" }
        for key in slices { try await Self.ask(kept, key, as: nil) }
        #expect(Self.keptOf(kept, slices).count == 6, "the capacity's, not a share's")
    }

    /// A client's requests run at most ``KeptResults/backgroundPerClient`` passes in the
    /// background at once, and a pass being computed is never dropped to make room (its
    /// key's next request would start a second).
    @Test func aClientRunsTwoPassesInTheBackgroundAndNoneIsDropped() async throws {
        let kept = KeptResults<Int>(capacity: 4, slowComputation: .seconds(3_600))
        let (gate, open) = AsyncStream<Void>.makeStream()
        let gated: @Sendable () async throws -> Int = {
            for await _ in gate {}
            return 1
        }
        let slices = (0..<4).map { "game#\($0)" }
        ReadOrigin.$client.withValue("eve") {
            for key in slices { kept.refresh(key, stamp: 1, compute: gated) }
        }
        #expect(slices.map { kept.isComputing($0) } == [true, true, false, false])
        // Another client's pass starts, and eve's running ones outlive eve's new keys.
        ReadOrigin.$client.withValue("ana") { kept.refresh("game#ana", stamp: 1, compute: gated) }
        #expect(kept.isComputing("game#ana"))
        for index in 0..<20 { try await Self.ask(kept, "team#\(index)", as: "eve") }
        #expect(slices.prefix(2).allSatisfy { kept.isComputing($0) })
        open.finish()
        try await KeptCountsTests.until { !kept.isComputing("game#0") && !kept.isComputing("game#1") }
        // Ended, they free eve's turns.
        try await KeptCountsTests.until {
            ReadOrigin.$client.withValue("eve") { kept.refresh(slices[2], stamp: 1) { 3 } }
            return kept.latest(slices[2]) == 3
        }
    }
}
