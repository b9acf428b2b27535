import DataMediator
import DataMediatorTesting
import Testing

/// The conformance suite's half for reading both ways (API.md, "Both directions and
/// anchored loads"): every provider opens every view at items anywhere and walks it back
/// and forth to both ends, assembling exactly the forward walk.
@Suite struct BothWaysConformanceTests {
    typealias Subject = ProviderConformanceTests.Subject

    /// The first, the last and a few items between, drawn the same on every run.
    static func anchors(of ids: [String], seed: UInt64) -> [String] {
        guard let first = ids.first, let last = ids.last else { return [] }
        var random = SplitMix64(seed: seed)
        return [first, last] + (0..<3).map { _ in ids[Int(random.next() % UInt64(ids.count))] }
    }

    /// Opens view `name` at each of `anchors`, walks it both ways to both ends, and expects
    /// every page and the assembled walk to follow the rules.
    static func expectBothWays(
        _ subject: Subject,
        view name: String,
        limit: Int?,
        around anchors: [String],
        forward: WalkCheck
    ) async throws {
        for id in anchors {
            let check = try await SampleList.walkBothWays(
                subject.adapter,
                view: name,
                limit: limit,
                around: id,
                forward: forward
            )
            #expect(check.violations == [], "view \(name), limit \(limit ?? 0), around \(id)")
        }
    }

    @Test(
        "walks opened at any item go both ways to both ends and assemble the forward walk",
        arguments: ProviderKind.allCases
    )
    func walksBothWays(kind: ProviderKind) async throws {
        let subject = try await Subject(kind)
        for name in ProviderConformanceTests.views {
            for limit in [1, 2, 3, 7, nil] {
                let forward = try await SampleList.walk(subject.adapter, view: name, limit: limit)
                #expect(forward.violations == [], "view \(name), limit \(limit ?? 0)")
                let anchors = Self.anchors(of: forward.items.map(\.id), seed: UInt64(limit ?? 0))
                try await Self.expectBothWays(subject, view: name, limit: limit, around: anchors, forward: forward)
            }
        }
    }

    @Test("a slice is walked both ways within itself", arguments: ProviderKind.allCases)
    func slicesBothWays(kind: ProviderKind) async throws {
        let subject = try await Subject(kind)
        for value in SampleList.kinds {
            let slice = SliceRequest(parameters: ["kind": [value]])
            let forward = try await SampleList.walk(subject.adapter, view: "by_day", limit: 2, slice: slice)
            for id in Self.anchors(of: forward.items.map(\.id), seed: 5) {
                let check = try await SampleList.walkBothWays(
                    subject.adapter,
                    view: "by_day",
                    limit: 2,
                    around: id,
                    forward: forward,
                    slice: slice
                )
                #expect(check.violations == [], "kind \(value), around \(id)")
            }
            // An item of another slice is not there to open at.
            let outsider = try #require(SampleList.items().first { $0["kind"] != .string(value) })
            let error = await #expect(throws: DataMediatorError.self) {
                _ = try await subject.adapter.page(
                    view: "by_day",
                    limit: "2",
                    cursor: nil,
                    around: outsider["id"].idString,
                    slice: slice
                )
            }
            #expect(error?.code == .unknownItem)
        }
    }

    @Test("prev of the second page leads back to the first page's items", arguments: ProviderKind.allCases)
    func prevLeadsBack(kind: ProviderKind) async throws {
        let subject = try await Subject(kind)
        for name in ProviderConformanceTests.views {
            let first = try await subject.adapter.page(view: name, limit: "4", cursor: nil)
            #expect(first.prev == nil)
            let second = try await subject.adapter.page(view: name, limit: "4", cursor: first.next)
            let back = try await subject.adapter.page(view: name, limit: "4", cursor: second.prev)
            #expect(back.items == first.items, "view \(name)")
            // Nothing precedes the first page: no prev, no loading-before, and nothing follows in its sections.
            #expect(back.prev == nil && !back.sections.contains { $0.kind == .loading }, "view \(name)")
            // Its next leads forward to the second page again.
            let again = try await subject.adapter.page(view: name, limit: "4", cursor: back.next)
            #expect(again.items == second.items, "view \(name)")
        }
    }

    @Test("a located item's page has prev exactly when items precede it", arguments: ProviderKind.allCases)
    func aLocatedItemsPageHasPrevWhenItemsPrecede(kind: ProviderKind) async throws {
        let subject = try await Subject(kind)
        for name in ProviderConformanceTests.views {
            let forward = try await SampleList.walk(subject.adapter, view: name, limit: 10)
            for position in [0, 1, forward.items.count - 1] {
                let location = try await subject.adapter.locate(id: forward.items[position].id, view: name)
                let page = try await subject.adapter.page(view: name, limit: "3", cursor: location.cursor)
                #expect((page.prev == nil) == (position == 0), "view \(name), position \(position)")
                guard let prev = page.prev else { continue }
                let back = try await subject.adapter.page(view: name, limit: "3", cursor: prev)
                #expect(back.items.last?.id == forward.items[position - 1].id, "view \(name), position \(position)")
            }
        }
    }

    @Test("around is refused with a cursor, when empty and for an unknown id", arguments: ProviderKind.allCases)
    func aroundIsChecked(kind: ProviderKind) async throws {
        let subject = try await Subject(kind)
        let first = try await subject.adapter.page(view: nil, limit: "2", cursor: nil)
        for (cursor, around, code) in [
            (first.next, "item-01", DataMediatorError.Code.badParameter), (nil, "", .badParameter),
            (nil, "missing", .unknownItem),
        ] {
            let error = await #expect(throws: DataMediatorError.self) {
                _ = try await subject.adapter.page(view: nil, limit: "2", cursor: cursor, around: around)
            }
            #expect(error?.code == code, "around \(around)")
        }
    }

    @Test("an empty source answers an empty page around nothing", arguments: ProviderKind.allCases)
    func emptySourceHasNothingAround(kind: ProviderKind) async throws {
        let subject = try await Subject(kind, items: [])
        let error = await #expect(throws: DataMediatorError.self) {
            _ = try await subject.adapter.page(view: nil, limit: "2", cursor: nil, around: "item-01")
        }
        #expect(error?.code == .unknownItem)
    }
}

extension BothWaysConformanceTests {
    /// Items whose ids and section keys spell the synthetic ones (`loading`,
    /// `loading-before`) are data like any other: `kind` tells them apart, so every page
    /// rule holds, walks assemble in view order, and a page opens at them.
    @Test("ids and sections named like the synthetic ones are data like any other", arguments: ProviderKind.allCases)
    func dataNamedLikeTheLoadingSectionsIsData(kind: ProviderKind) async throws {
        var items = SampleList.items(count: 24)
        items[0]["id"] = .string("loading")
        items[1]["id"] = .string("loading-before")
        for index in [2, 3, 4, 9] { items[index]["group"] = .string("loading") }
        items[6]["group"] = .string("loading-before")
        let subject = try await Subject(kind, items: items)
        for name in ProviderConformanceTests.views {
            let view = try SampleList.definition.view(named: name)
            let expected = SampleList.expectedOrder(items, view: view).map { $0["id"].idString }
            for limit in [1, 2, 3] {
                var forward = try await SampleList.walk(subject.adapter, view: name, limit: limit)
                forward.expectOrder(expected)
                #expect(forward.violations == [], "view \(name), limit \(limit)")
                let anchors = ["loading", "loading-before"].filter(expected.contains)
                try await Self.expectBothWays(subject, view: name, limit: limit, around: anchors, forward: forward)
            }
        }
    }
}
