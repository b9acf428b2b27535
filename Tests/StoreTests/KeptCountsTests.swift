import DataMediator
import DataMediatorPostgres
import DataMediatorSQLite
import DataMediatorTesting
import Foundation
import GRDB
import PostgresNIO
import Synchronization
import Testing

@testable import DataMediatorSQL

/// Counts kept per stamp of a list's tables: places and sections of a list longer than
/// several marks equal its walk's, and follow rows that other programs write (which the
/// store's version does not see); a query list's kept result follows them too.
@Suite struct KeptCountsTests {
    enum SQLKind: String, CaseIterable, CustomTestStringConvertible {
        case sqlite
        case postgres

        var testDescription: String { rawValue }
    }

    /// A store of the sample table, written to behind the service's back.
    final class Subject {
        let sqlite: SQLiteFixture?
        let postgres: PostgresFixture?
        let provider: any SQLDataProvider

        init(_ kind: SQLKind, items: [Item], definition: ListDefinition = SampleList.definition) async throws {
            switch kind {
            case .sqlite:
                let fixture = try SQLiteFixture(items: items)
                (sqlite, postgres) = (fixture, nil)
                provider = try fixture.provider(definition: definition)
            case .postgres:
                let fixture = try await PostgresFixture()
                (sqlite, postgres) = (nil, fixture)
                provider = try await fixture.store.provider(for: definition, source: SQLiteFixture.source)
                try await fixture.insert(items)
            }
        }

        /// A provider of another list over the same store.
        func provider(_ definition: ListDefinition, _ source: StoreSource) async throws -> any SQLDataProvider {
            if let sqlite { return try sqlite.provider(source, definition: definition) }
            guard let postgres else { throw FixtureError("no store") }
            return try await postgres.store.provider(for: definition, source: source)
        }

        /// Inserts rows as another program would: plain SQL, no version raised.
        func insert(_ items: [Item]) async throws {
            if let sqlite { try sqlite.insert(items) }
            if let postgres { try await postgres.insert(items) }
        }

        /// Deletes the rows whose id ends with `suffix`, as another program would.
        func delete(idsEndingWith suffix: String) async throws {
            if let sqlite {
                try await sqlite.store.database.write { db in
                    try db.execute(sql: "DELETE FROM sample WHERE id LIKE ?", arguments: ["%" + suffix])
                }
            }
            if let postgres {
                try await postgres.store.primary.query(
                    PostgresQuery(unsafeSQL: "DELETE FROM sample WHERE id LIKE $1", binds: try bindings("%" + suffix))
                )
            }
        }

        private func bindings(_ text: String) throws -> PostgresBindings {
            var bindings = PostgresBindings()
            bindings.append(text)
            return bindings
        }
    }

    /// Items past the sample's own, numbered from `start`.
    static func items(_ range: Range<Int>) -> [Item] {
        let all = SampleList.items(count: range.upperBound + 1)
        return range.map { index in
            var item = all[index]
            item["id"] = .string("more-\(index)")
            return item
        }
    }

    /// Every `stride`-th item of each view is placed where the walk has it, and the
    /// sections are the walk's, for the whole view and for one slice.
    static func expectPlacesAreTheWalks(_ provider: any SQLDataProvider, items: [Item], stride: Int) async throws {
        let definition = SampleList.definition
        var slices = [SliceRequest.whole]
        slices.append(SliceRequest(parameters: ["kind": ["odd"]]))
        for view in SampleList.views {
            for slice in slices {
                guard let sliced = try? definition.view(named: view.name, slice: slice) else { continue }
                let order = SampleList.expectedOrder(items, view: sliced)
                // Answered from the outline, read and waited for (a request only starts it).
                _ = try await provider.reader.outline(of: sliced)
                let counts = try await provider.sectionCounts(of: sliced)
                #expect(counts.entries.reduce(0) { $0 + $1.count } == order.count, "\(view.name) \(slice)")
                var sectionOf: [String: (index: Int, start: Int)] = [:]
                var start = 0
                for (index, entry) in counts.entries.enumerated() {
                    sectionOf[view.section.map { $0.id(for: entry.key) } ?? view.name] = (index, start)
                    start += entry.count
                }
                for index in Swift.stride(from: 0, to: order.count, by: stride) {
                    let id = order[index]["id"].idString
                    let location = try #require(try await provider.locate(id: id, in: sliced), "\(id)")
                    let section = try #require(sectionOf[sliced.sectionID(of: order[index])])
                    #expect(location.position == index, "\(view.name) \(id)")
                    #expect(location.sectionIndex == section.index, "\(view.name) \(id)")
                    #expect(location.itemIndex == index - section.start, "\(view.name) \(id)")
                }
            }
        }
    }

    @Test(
        "places and sections of a long list are its walk's, and follow rows other programs write",
        arguments: SQLKind.allCases
    )
    func placesFollowOtherProgramsWrites(kind: SQLKind) async throws {
        var items = SampleList.items(count: 1_300)
        let subject = try await Subject(kind, items: items)
        try await Self.expectPlacesAreTheWalks(subject.provider, items: items, stride: 37)
        // Asked again at the same stamp: the kept outline answers the same.
        try await Self.expectPlacesAreTheWalks(subject.provider, items: items, stride: 53)
        // Rows inserted and deleted behind the service's back move the stamp.
        let more = Self.items(1_300..<1_700)
        try await subject.insert(more)
        items += more
        try await subject.delete(idsEndingWith: "7")
        items.removeAll { $0["id"].idString.hasSuffix("7") }
        try await Self.expectPlacesAreTheWalks(subject.provider, items: items, stride: 41)
    }

    @Test("a query list's kept result follows the rows of the tables it names", arguments: SQLKind.allCases)
    func aQueryListsResultFollowsItsTables(kind: SQLKind) async throws {
        let subject = try await Subject(kind, items: SampleList.items(count: 300))
        let definition = ListDefinition(
            name: "kinds",
            title: "Kinds",
            idField: "kind",
            views: [
                View(
                    name: "all",
                    sort: [SortKey("items", .descending), SortKey("kind")],
                    idField: "kind",
                    cellType: .fixed("kind"),
                    fields: ["items"]
                )
            ]
        )
        let query = "SELECT kind, COUNT(*) AS items FROM sample GROUP BY kind"
        let fields: [String: FieldType] = ["kind": .string, "items": .integer]
        let kept = try await subject.provider(
            definition,
            StoreSource(kind: .query(query), fieldTypes: fields, versionTables: ["sample"])
        )
        let unkept = try await subject.provider(definition, StoreSource(kind: .query(query), fieldTypes: fields))
        let view = try definition.view(named: "all")
        func counts(_ provider: any SQLDataProvider) async throws -> [String: String] {
            let window = try await provider.window(of: view, from: nil, inclusive: false, limit: 10)
            return Dictionary(
                uniqueKeysWithValues: window.items.map { ($0["kind"].idString, $0["items"].idString) }
            )
        }
        #expect(try await counts(kept) == ["big": "100", "small": "100", "odd": "100"])
        try await subject.insert(Self.items(300..<330))
        #expect(try await counts(kept) == ["big": "110", "small": "110", "odd": "110"])
        #expect(try await counts(unkept) == ["big": "110", "small": "110", "odd": "110"])
        let located = try #require(try await kept.locate(id: "odd", in: view))
        #expect(located.position == 1)  // big, odd, small: 110 each, then by kind
        let sections = try await kept.sectionCounts(of: view)
        #expect(sections.entries.map(\.count) == [3])
    }

    @Test func aKeptResultIsComputedOncePerStampAndAFailureIsNotKept() async throws {
        let kept = KeptResults<Int>(capacity: 2)
        let computed = Counter()
        await withTaskGroup(of: Int.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    (try? await kept.value("a", stamp: 1) {
                        await computed.add()
                        try await Task.sleep(for: .milliseconds(20))
                        return 7
                    }) ?? -1
                }
            }
            for await value in group { #expect(value == 7) }
        }
        #expect(await computed.count == 1)
        #expect(kept.latest("a") == 7)
        #expect(try await kept.value("a", stamp: 2) { 8 } == 8)
        await #expect(throws: FixtureError.self) { try await kept.value("b", stamp: 1) { throw FixtureError("no") } }
        #expect(try await kept.value("b", stamp: 1) { 9 } == 9)
        // At capacity, a key asked for once goes before one asked for again.
        _ = try await kept.value("c", stamp: 1) { 10 }
        #expect(kept.latest("b") == nil)
        #expect(kept.latest("a") == 8 && kept.latest("c") == 10)
    }

    /// One client asking for many slices once each (new parameter values, one after
    /// another) drops only slices asked for once, never those the clients come back to
    /// (probe 67: ~300 `/sections` of empty slices made everyone's next lookups cold); a
    /// slice asked for anew still stays once asked again, the protected one used longest
    /// ago going back on probation.
    @Test func slicesAskedForOnceNeverDropThoseAskedForAgain() async throws {
        let kept = KeptResults<Int>(capacity: 10)
        for round in 0..<2 {
            for player in 0..<8 { _ = try await kept.value("by_player#\(player)", stamp: 1) { player + round } }
        }
        for game in 0..<300 { _ = try await kept.value("game#\(game)", stamp: 1) { game } }
        let players = (0..<8).map { kept.latest("by_player#\($0)") }
        #expect(players == (0..<8).map(Optional.some))
        // New slices asked for again are kept, and the protected used longest ago demoted.
        for team in 0..<4 {
            for round in 0..<2 { _ = try await kept.value("team#\(team)", stamp: 1) { team + round } }
        }
        for game in 300..<600 { _ = try await kept.value("game#\(game)", stamp: 1) { game } }
        let teams = (0..<4).map { kept.latest("team#\($0)") }
        #expect(teams == (0..<4).map(Optional.some))
        // Each promotion put one back on probation, which a new key then dropped.
        let stayed = (0..<8).compactMap { kept.latest("by_player#\($0)") }
        #expect(stayed == [4, 5, 6, 7])
        #expect(kept.latest("game#599") == 599 && kept.latest("game#300") == nil)
    }

    /// Slices' keys (`#`: one per parameter value or caller, as many as clients make up)
    /// go before views' own: new slices asked for over and over never drop a view's result.
    @Test func newSlicesNeverDropAViewsOwnResult() async throws {
        let kept = KeptResults<Int>(capacity: 3)
        _ = try await kept.value("chronological", stamp: 1) { 1 }
        _ = try await kept.value("feed", stamp: 1) { 2 }
        for game in 0..<50 { _ = try await kept.value("game#\(game)", stamp: 1) { game } }
        #expect(kept.latest("chronological") == 1 && kept.latest("feed") == 2)
        #expect(kept.latest("game#49") == 49 && kept.latest("game#48") == nil)
        // Views alone fill it: the one used longest ago goes.
        _ = try await kept.value("by_player", stamp: 1) { 3 }
        _ = try await kept.value("top", stamp: 1) { 4 }
        #expect(kept.latest("chronological") == nil && kept.latest("top") == 4)
    }

    /// A refresh starts one computation per key at a time, none for a stamp kept or being
    /// computed, and one for a newer stamp once the running one ended.
    @Test func aRefreshComputesInTheBackgroundOneAtATime() async throws {
        // Slow computations rest their key (aSlowComputationRestsItsKey); under load the
        // gated one below can take past the default 50 ms, and the refresh at stamp 2 would
        // then be ignored: never here.
        let kept = KeptResults<Int>(slowComputation: .seconds(3_600))
        let computed = Counter()
        let (gate, open) = AsyncStream<Void>.makeStream()
        kept.refresh("a", stamp: 1) {
            await computed.add()
            for await _ in gate {}
            return 1
        }
        try await Self.until { kept.isComputing("a") }
        // Each computation is counted, and answers `value`.
        let counted = { (value: Int) in
            { @Sendable () async throws -> Int in
                await computed.add()
                return value
            }
        }
        kept.refresh("a", stamp: 1, compute: counted(9))
        kept.refresh("a", stamp: 2, compute: counted(9))
        #expect(kept.latest("a") == nil)
        open.finish()
        try await Self.until { kept.latest("a") != nil }
        let once = await computed.count
        #expect(kept.latest("a") == 1 && once == 1)
        kept.refresh("a", stamp: 1, compute: counted(9))
        kept.refresh("a", stamp: 2, compute: counted(2))
        try await Self.until { kept.latest("a") == 2 }
        #expect(await computed.count == 2)
    }

    /// A slow computation rests its key: a refresh starts none for `restFactor` times its
    /// length, and one does after; a quick computation does not rest it.
    @Test func aSlowComputationRestsItsKey() async throws {
        let computed = Counter()
        let slow = { (value: Int) in
            { @Sendable () async throws -> Int in
                await computed.add()
                try await Task.sleep(for: .milliseconds(20))
                return value
            }
        }
        // 1,000 times at least 20 ms: a rest longer than the test.
        let resting = KeptResults<Int>(slowComputation: .milliseconds(10), restFactor: 1000)
        _ = try await resting.value("a", stamp: 1, compute: slow(1))
        resting.refresh("a", stamp: 2, compute: slow(2))
        try await Task.sleep(for: .milliseconds(50))
        #expect(resting.latest("a") == 1)
        #expect(await computed.count == 1)
        // Once its length: a refresh starts one soon.
        let brief = KeptResults<Int>(slowComputation: .milliseconds(10), restFactor: 1)
        _ = try await brief.value("a", stamp: 1, compute: slow(1))
        try await Self.until {
            brief.refresh("a", stamp: 2, compute: slow(2))
            return brief.latest("a") == 2
        }
        // Quicker than `slowComputation`: no rest.
        let quick = KeptResults<Int>(slowComputation: .seconds(10), restFactor: 1000)
        _ = try await quick.value("a", stamp: 1, compute: slow(1))
        quick.refresh("a", stamp: 2, compute: slow(2))
        try await Self.until { quick.latest("a") == 2 }
    }

    /// A result kept by its caller does not replace one kept or being computed at a later
    /// stamp; one being computed at its stamp answers with it meanwhile.
    @Test func aKeptResultDoesNotReplaceALaterOne() async throws {
        let kept = KeptResults<Int>()
        let (gate, open) = AsyncStream<Void>.makeStream()
        kept.refresh("a", stamp: 5) {
            for await _ in gate {}
            return 5
        }
        kept.keep("a", stamp: 3, 3)
        #expect(kept.isComputing("a", at: 5) && kept.latest("a") == nil)
        kept.keep("a", stamp: 5, 50)
        #expect(kept.latest("a") == 50)
        // The computation's own value lands when it ends.
        open.finish()
        try await Self.until { kept.latest("a") == 5 }
        kept.keep("a", stamp: 4, 4)
        #expect(kept.latest("a") == 5)
    }

    /// A view's counting slots: two at once, given back.
    @Test func countingSlotsAreTwoPerView() {
        let slots = CountingSlots()
        #expect(slots.take("a") && slots.take("a") && !slots.take("a"))
        #expect(slots.take("b"))
        slots.giveBack("a")
        #expect(slots.take("a") && !slots.take("a"))
    }

    /// With the view's counting slots taken (two lookups counting), a lookup waits for the
    /// outline being read rather than count too, and is placed from it.
    @Test(arguments: SQLKind.allCases)
    func pastItsCountingSlotsALookupWaitsForTheOutline(kind: SQLKind) async throws {
        let holding = try await HeldOutline(kind)
        let (items, provider, reader, view, open, held) = (
            holding.items, holding.provider, holding.provider.reader, holding.view, holding.open, holding.held
        )
        #expect(reader.countingSlots.take(view.binding) && reader.countingSlots.take(view.binding))
        let id = SampleList.expectedOrder(items, view: view)[250]["id"].idString
        let done = Mutex(false)
        let lookup = Task {
            let place = try await provider.locate(id: id, in: view)
            done.withLock { $0 = true }
            return place
        }
        try await Task.sleep(for: .milliseconds(300))
        #expect(!done.withLock { $0 }, "the lookup counted instead of waiting for the outline")
        open.finish()
        _ = try await held.value
        let place = try #require(try await lookup.value)
        let counted = try #require(try await reader.locate(id: id, in: view))
        #expect(place.position == counted.position)
        #expect(place.sectionIndex == counted.sectionIndex && place.itemIndex == counted.itemIndex)
    }

    /// With an outline being read that does not end, a place and the sections are counted
    /// instead of waiting for it, and are what counting gives.
    @Test(arguments: SQLKind.allCases)
    func aLookupDoesNotWaitForTheOutline(kind: SQLKind) async throws {
        let holding = try await HeldOutline(kind)
        let (items, provider, reader, view, open, held) = (
            holding.items, holding.provider, holding.provider.reader, holding.view, holding.open, holding.held
        )
        let id = SampleList.expectedOrder(items, view: view)[250]["id"].idString
        let answers = try await withThrowingTaskGroup(of: (Location?, SectionCounts)?.self) { group in
            group.addTask {
                (
                    try await provider.locate(id: id, in: view),
                    try await provider.sectionCounts(of: view)
                )
            }
            group.addTask {
                try await Task.sleep(for: .seconds(20))
                // Waited too long: the outline is let go, so the lookup ends (and fails).
                open.finish()
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
        open.finish()
        _ = try? await held.value
        let (place, counts) = try #require(answers, "the lookup waited for the outline")
        let counted = try #require(try await reader.locate(id: id, in: view))
        #expect(place?.position == counted.position && place?.sectionIndex == counted.sectionIndex)
        #expect(counts.entries == (try await reader.sectionCounts(of: view)).entries)
        // Counted once for every request at the stamp (KeptResults), not once each.
        #expect(reader.counted.latest(view.binding)?.entries == counts.entries)
    }

    /// Waits until `condition` holds, for 20 seconds at most.
    static func until(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw FixtureError("timed out") }
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    actor Counter {
        var count = 0
        func add() { count += 1 }
    }
}
