import DataMediator
import DataMediatorTesting
import Testing

/// Sort keys of any length are walked past by every provider with short cursors: a token
/// carries a long text key abridged (``AbridgedKey``) and the page reads it back from the
/// cursor's item. Before, a row another program wrote with a key of 20,000 bytes stopped
/// every walk at it (its cursor was longer than the server takes back: probe 40), and keys
/// within the write limits made `Link` headers of several kilobytes.
@Suite struct LongKeyConformanceTests {
    /// 800 bytes every long group begins with (two-byte letters).
    static let stem = String(repeating: "\u{E9}", count: 400)

    /// Groups of 801 bytes that differ in their last byte only, one short group, and one
    /// of 20,000 bytes, longer than writes allow.
    static func items() -> [Item] {
        SampleList.items(count: 14).enumerated().map { index, item in
            var item = item
            let group: String
            switch index {
            case 13: group = String(repeating: "z", count: 20_000)
            case 9: group = "short"
            default: group = stem + ["a", "b", "c"][index % 3]
            }
            item["group"] = .string(group)
            return item
        }
    }

    /// The tokens a walk hands out are short, whatever the keys hold.
    static let tokenBound = 600

    @Test("long sort keys are walked both ways with short cursors", arguments: ProviderKind.allCases)
    func longKeysAreWalkedPast(kind: ProviderKind) async throws {
        let items = Self.items()
        let subject = try await ProviderConformanceTests.Subject(kind, items: items)
        let adapter = subject.adapter
        let view = try SampleList.definition.view(named: "by_group")
        let expected = SampleList.expectedOrder(items, view: view).map { $0["id"].idString }
        for limit in [1, 2, 3] {
            var check = try await SampleList.walk(adapter, view: "by_group", limit: limit)
            check.expectOrder(expected)
            check.expectSections(try await adapter.sectionInfo(view: "by_group").sections)
            #expect(check.violations == [], "limit \(limit)")
            #expect(check.items.count == items.count, "limit \(limit)")
            var cursor: String?
            repeat {
                let page = try await adapter.page(view: "by_group", limit: String(limit), cursor: cursor)
                for token in [page.next, page.prev].compactMap(\.self) {
                    #expect(token.utf8.count < Self.tokenBound, "limit \(limit): \(token.utf8.count)")
                }
                cursor = page.next
            } while cursor != nil
            let anchors = [expected[0], expected[4], expected[expected.count - 1]]
            try await BothWaysConformanceTests.expectBothWays(
                subject,
                view: "by_group",
                limit: limit,
                around: anchors,
                forward: check
            )
        }
        // A located item's cursor is short too, and leads to the page that starts with it.
        for id in expected {
            let location = try await adapter.locate(id: id, view: "by_group")
            #expect(location.cursor.utf8.count < Self.tokenBound)
            let page = try await adapter.page(view: "by_group", limit: "2", cursor: location.cursor)
            #expect(page.items.first?.id == id)
        }
    }

    /// Writes long keys within the write limits: ids 1 to 6, two in each of three groups of
    /// 801 bytes that share their first 800.
    static func writtenSubject(_ kind: WritableKind) async throws -> (WritableSubject, [String]) {
        let subject = try await WritableSubject(kind)
        for index in 1...6 {
            let data: JSONValue = .object([
                "group": .string(stem + ["a", "b", "c"][(index - 1) / 2]), "score": .integer(Int64(index)),
                "title": .string("t\(index)"), "created": .string("2026-11-01T10:00:00Z"), "kind": .string("big"),
            ])
            _ = try await subject.adapter.replace(id: String(index), body: .object(["data": data]))
        }
        let order = try await subject.adapter.page(view: "by_group", limit: "50", cursor: nil).items.map(\.id)
        return (subject, order)
    }

    /// The ids a walk from `cursor` on reads, to its end.
    static func rest(of adapter: ListAdapter, from cursor: String?, limit: Int) async throws -> [String] {
        var ids: [String] = []
        var cursor = cursor
        var pages = 0
        while let token = cursor, pages < 50 {
            let page = try await adapter.page(view: "by_group", limit: String(limit), cursor: token)
            ids += page.items.map(\.id)
            cursor = page.next
            pages += 1
        }
        return ids
    }

    @Test(
        "a cursor whose item is gone or moved reads on without skipping an item",
        arguments: WritableKind.allCases
    )
    func aCursorWhoseItemIsGoneOrMovedSkipsNothing(kind: WritableKind) async throws {
        let (subject, order) = try await Self.writtenSubject(kind)
        defer { withExtendedLifetime(subject) {} }
        let adapter = subject.adapter
        #expect(order.count == 6)
        // The cursor's item unchanged: the next page starts right after it.
        let first = try await adapter.page(view: "by_group", limit: "2", cursor: nil)
        #expect(try await Self.rest(of: adapter, from: first.next, limit: 2) == Array(order[2...]))
        // Gone: every item after it is still read (some before it may be read again).
        _ = try await adapter.delete(id: order[1])
        let afterDelete = try await Self.rest(of: adapter, from: first.next, limit: 2)
        #expect(Set(order[2...]).isSubset(of: afterDelete), "\(afterDelete)")
        #expect(afterDelete.last == order.last && !afterDelete.contains(order[1]), "\(afterDelete)")
        // Moved within its long group's first bytes (another last byte): the same.
        let second = try await adapter.page(view: "by_group", limit: "2", cursor: first.next)
        let moved = try #require(second.items.last?.id)
        let then = try await adapter.page(view: "by_group", limit: "50", cursor: nil).items.map(\.id)
        _ = try await adapter.patch(id: moved, body: .object(["data": .object(["group": .string(Self.stem + "0")])]))
        let following = then.drop { $0 != moved }.dropFirst()
        let afterMove = try await Self.rest(of: adapter, from: second.next, limit: 2)
        #expect(!following.isEmpty && Set(following).isSubset(of: afterMove), "\(afterMove) after \(then)")
        // A backward cursor whose item is gone reads every item before it.
        let last = try await adapter.page(view: "by_group", limit: "2", cursor: second.next)
        let gone = try #require(last.items.first?.id)
        _ = try await adapter.delete(id: gone)
        let before = try await adapter.page(view: "by_group", limit: "50", cursor: last.prev).items.map(\.id)
        let remaining = try await adapter.page(view: "by_group", limit: "50", cursor: nil).items.map(\.id)
        let ahead = try #require(last.items.last?.id)
        let earlier = Set(remaining.prefix { $0 != ahead })
        #expect(earlier.isSubset(of: before), "\(before) of \(remaining)")
    }

    /// Keys of 501 bytes that differ after their first 400 (within the bytes a token may
    /// carry to tell them apart): a cursor whose item is deleted or moved reads on exactly,
    /// showing no item again (probe 60: cut at 256 bytes, the page before the cursor was
    /// shown again after its last item was deleted).
    @Test(
        "a cursor past a long key whose item is gone shows nothing again",
        arguments: WritableKind.allCases
    )
    func aCursorPastALongKeyWhoseItemIsGoneShowsNothingAgain(kind: WritableKind) async throws {
        let subject = try await WritableSubject(kind)
        defer { withExtendedLifetime(subject) {} }
        let adapter = subject.adapter
        let stem = String(repeating: "\u{E9}", count: 200)
        for (index, letter) in ["a", "b", "c", "d", "e", "f", "g"].enumerated() {
            let data: JSONValue = .object([
                "group": .string(stem + letter + String(repeating: "x", count: 100)), "score": .integer(1),
                "title": .string(letter), "created": .string("2026-11-01T10:00:00Z"), "kind": .string("big"),
            ])
            _ = try await adapter.replace(id: String(index + 1), body: .object(["data": data]))
        }
        let order = try await adapter.page(view: "by_group", limit: "50", cursor: nil).items.map(\.id)
        #expect(order == ["1", "2", "3", "4", "5", "6", "7"])
        let first = try await adapter.page(view: "by_group", limit: "2", cursor: nil)
        _ = try await adapter.delete(id: "2")
        #expect(try await Self.rest(of: adapter, from: first.next, limit: 2) == ["3", "4", "5", "6", "7"])
        // Moved far away (to the top: "zz" orders before "\u{E9}"): the same.
        let second = try await adapter.page(view: "by_group", limit: "2", cursor: first.next)
        #expect(second.items.map(\.id) == ["3", "4"])
        _ = try await adapter.patch(id: "4", body: .object(["data": .object(["group": .string("zz")])]))
        #expect(try await Self.rest(of: adapter, from: second.next, limit: 2) == ["5", "6", "7"])
        // Backward from a page whose first item is gone: the items before it, none after.
        let third = try await adapter.page(view: "by_group", limit: "2", cursor: second.next)
        #expect(third.items.map(\.id) == ["5", "6"])
        _ = try await adapter.delete(id: "5")
        let before = try await adapter.page(view: "by_group", limit: "50", cursor: third.prev)
        #expect(before.items.map(\.id) == ["4", "1", "3"])
        // Tokens stay within a proxy's header buffer: two of them fit a `Link` of 4 KiB.
        for token in [first.next, second.next, third.prev].compactMap(\.self) { #expect(token.utf8.count < 1_600) }
    }
}
