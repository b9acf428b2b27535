import DataMediator
import Testing

/// A page read with a cursor says what lies beyond it as the items are when it is read,
/// on every writable store (API.md, rules 2, 3, 7 and 8): from a `next`, `prev` is null
/// exactly when nothing precedes its first item, and its first section `continues` exactly
/// when that section began before the page; from a `prev`, `next` is null exactly when
/// nothing follows it; however the items changed since the cursor was made.
@Suite struct ForwardPageEdgesTests {
    static func item(_ id: String, _ group: String, _ score: Int64) -> JSONValue {
        .object(["id": .string(id), "data": .object(["group": .string(group), "score": .integer(score)])])
    }

    /// The page `cursor` leads to in `by_group` (group, then score descending), two items.
    static func page(_ adapter: ListAdapter, _ cursor: String?) async throws -> Page {
        try await adapter.page(view: "by_group", limit: "2", cursor: cursor)
    }

    @Test(
        "prev and continues of a page read from a next follow deletes and inserts before it",
        arguments: WritableKind.allCases
    )
    func forwardPagesReadWhatPrecedesThem(kind: WritableKind) async throws {
        let subject = try await WritableSubject(kind)
        let adapter = subject.adapter
        for (id, group, score) in [("a1", "alpha", 9), ("b1", "beta", 9), ("b2", "beta", 5), ("b3", "beta", 3)] {
            _ = try await adapter.create(body: Self.item(id, group, Int64(score)))
        }
        _ = try await adapter.create(body: Self.item("c1", "gamma", 1))
        let first = try await Self.page(adapter, nil)
        #expect(first.items.map(\.id) == ["a1", "b1"])
        let next = try #require(first.next)

        // As made: beta began on the first page.
        var page = try await Self.page(adapter, next)
        #expect(page.items.map(\.id) == ["b2", "b3"])
        #expect(page.sections.first?.continues == true)
        #expect(page.prev != nil)

        // b1 moved to gamma: the cursor's position holds no item now, and alpha's a1
        // precedes the page, so beta starts on it.
        _ = try await adapter.replace(
            id: "b1",
            body: .object(["data": .object(["group": .string("gamma"), "score": .integer(0)])])
        )
        page = try await Self.page(adapter, next)
        #expect(page.items.map(\.id) == ["b2", "b3"])
        #expect(page.sections.first?.continues == false)
        #expect(page.prev != nil)

        // b1 deleted: the same.
        _ = try await adapter.delete(id: "b1")
        page = try await Self.page(adapter, next)
        #expect(page.items.map(\.id) == ["b2", "b3"])
        #expect(page.sections.first?.id == "beta")
        #expect(page.sections.first?.continues == false)
        let prev = try #require(page.prev)
        #expect(try await adapter.page(view: "by_group", limit: "2", cursor: prev).items.map(\.id) == ["a1"])

        // a1 deleted too: nothing precedes the page, which starts the view.
        _ = try await adapter.delete(id: "a1")
        page = try await Self.page(adapter, next)
        #expect(page.items.map(\.id) == ["b2", "b3"])
        #expect(page.sections.first?.continues == false)
        #expect(page.prev == nil)
        #expect(!page.sections.contains { $0.id == Mediator.loadingBeforeID })
        #expect(try await Self.page(adapter, nil).sections.map(\.id) == page.sections.map(\.id))

        // An item of beta written before the cursor's position: beta began before the page.
        _ = try await adapter.create(body: Self.item("b0", "beta", 10))
        page = try await Self.page(adapter, next)
        #expect(page.items.map(\.id) == ["b2", "b3"])
        #expect(page.sections.first?.continues == true)
        let before = try #require(page.prev)
        #expect(try await adapter.page(view: "by_group", limit: "2", cursor: before).items.map(\.id) == ["b0"])

        // Every item gone: the page is the empty list's (API.md, rule 7).
        for id in ["b0", "b2", "b3", "c1"] { _ = try await adapter.delete(id: id) }
        page = try await Self.page(adapter, next)
        #expect(page.sections.isEmpty)
        #expect(page.next == nil)
        #expect(page.prev == nil)
    }

    @Test(
        "a located item's page gains a prev when an item is written before it",
        arguments: WritableKind.allCases
    )
    func aLocatedPageAtTheStartGainsAPrev(kind: WritableKind) async throws {
        let subject = try await WritableSubject(kind)
        let adapter = subject.adapter
        for (id, score) in [("m1", 8), ("m2", 6), ("m3", 4)] {
            _ = try await adapter.create(body: Self.item(id, "beta", Int64(score)))
        }
        let located = try await adapter.locate(id: "m1", view: "by_group")
        var page = try await Self.page(adapter, located.cursor)
        #expect(page.items.map(\.id) == ["m1", "m2"])
        #expect(page.prev == nil)
        #expect(page.sections.first?.continues == false)

        _ = try await adapter.create(body: Self.item("m0", "beta", 9))
        page = try await Self.page(adapter, located.cursor)
        #expect(page.items.map(\.id) == ["m1", "m2"])
        #expect(page.sections.first?.continues == true)
        let prev = try #require(page.prev)
        #expect(try await adapter.page(view: "by_group", limit: "2", cursor: prev).items.map(\.id) == ["m0"])
    }

    @Test(
        "a page read from a prev has a next exactly while items follow it",
        arguments: WritableKind.allCases
    )
    func backwardPagesReadWhatFollowsThem(kind: WritableKind) async throws {
        let subject = try await WritableSubject(kind)
        let adapter = subject.adapter
        for (id, score) in [("m1", 8), ("m2", 6), ("m3", 4), ("m4", 2), ("m5", 1)] {
            _ = try await adapter.create(body: Self.item(id, "beta", Int64(score)))
        }
        let first = try await Self.page(adapter, nil)
        let after = try #require(first.next)
        let second = try await Self.page(adapter, after)
        #expect(second.items.map(\.id) == ["m3", "m4"])
        let prev = try #require(second.prev)
        var page = try await Self.page(adapter, prev)
        #expect(page.items.map(\.id) == ["m1", "m2"])
        #expect(page.next != nil)

        // The cursor's own item gone, m4 still follows.
        _ = try await adapter.delete(id: "m3")
        page = try await Self.page(adapter, prev)
        #expect(page.items.map(\.id) == ["m1", "m2"])
        let next = try #require(page.next)
        #expect(try await Self.page(adapter, next).items.map(\.id) == ["m4", "m5"])

        // Nothing follows: no next, as on any last page.
        for id in ["m4", "m5"] { _ = try await adapter.delete(id: id) }
        page = try await Self.page(adapter, prev)
        #expect(page.items.map(\.id) == ["m1", "m2"])
        #expect(page.next == nil)
        #expect(!page.sections.contains { $0.kind == .loading })

        // Every item gone: the empty list's page (API.md, rule 7).
        for id in ["m1", "m2"] { _ = try await adapter.delete(id: id) }
        page = try await Self.page(adapter, prev)
        #expect(page.sections.isEmpty)
        #expect(page.next == nil)
        #expect(page.prev == nil)
    }

}
