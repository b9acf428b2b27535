import DataMediator
import DataMediatorTesting
import Synchronization
import Testing

/// Composite lists: the rules of a page hold across children, capped children stop at
/// their cap, `more` cells continue the child's own list, ids are prefixed, and items and
/// section info answer across children.
@Suite struct CompositeTests {
    static let signer = CursorSigner(secret: SampleList.secret)
    static let sample = ListAdapter(
        definition: SampleList.definition,
        provider: ArrayDataProvider(items: SampleList.items(), idField: "id", views: SampleList.views),
        signer: signer
    )
    static let empty = ListAdapter(
        definition: SampleList.definition,
        provider: ArrayDataProvider(items: [], idField: "id", views: SampleList.views),
        signer: signer
    )

    static func view(_ name: String) throws -> View { try sample.definition.view(named: name) }

    static func welcome(_ count: Int) -> CompositeChild {
        CompositeChild(
            name: "welcome",
            content: .section(
                id: "hello",
                title: "Welcome",
                cells: (0..<count).map {
                    Cell(id: "w\($0)", type: "banner", rev: "1", data: .object(["n": .integer(Int64($0))]))
                }
            )
        )
    }

    /// A screen: a static section, the top 5 of one view with a `more` cell, an empty
    /// child, a whole view, and a nested composite of a static section and a capped view.
    static func screen() throws -> ListAdapter {
        let nested = ListAdapter.composite(
            name: "inner",
            title: "Inner",
            children: [
                CompositeChild(
                    name: "note",
                    content: .section(id: "n", title: nil, cells: [Cell(id: "x", type: "note", rev: "1", data: .null)])
                ),
                CompositeChild(name: "days", content: .list(sample, view: try view("by_day")), cap: 3),
            ],
            signer: signer
        )
        return ListAdapter.composite(
            name: "screen",
            title: "Screen",
            children: [
                welcome(2),
                CompositeChild(name: "top", content: .list(sample, view: try view("by_group")), cap: 5, more: true),
                CompositeChild(name: "none", content: .list(empty, view: try view("flat"))),
                CompositeChild(name: "all", content: .list(sample, view: try view("flat"))),
                CompositeChild(name: "inner", content: .list(nested, view: try nested.definition.view(named: nil))),
            ],
            signer: signer
        )
    }

    static func expectedIDs() throws -> [String] {
        let items = SampleList.items()
        func ids(_ view: String) throws -> [String] {
            SampleList.expectedOrder(items, view: try self.view(view)).map { $0["id"].idString }
        }
        return ["welcome/w0", "welcome/w1"] + (try ids("by_group")).prefix(5).map { "top/" + $0 } + ["top:more"]
            + (try ids("flat")).map { "all/" + $0 } + ["inner/note/x"]
            + (try ids("by_day")).prefix(3).map { "inner/days/" + $0 }
    }

    @Test func aChildWithFixedParametersShowsItsSliceOnly() async throws {
        let big = try Self.sample.definition.view(named: "by_day", slice: SliceRequest(parameters: ["kind": ["big"]]))
        let composite = ListAdapter.composite(
            name: "bigs",
            title: "Big ones",
            children: [CompositeChild(name: "big", content: .list(Self.sample, view: big))],
            signer: Self.signer
        )
        var check = try await SampleList.walk(composite, view: nil, limit: 4)
        let expected = SampleList.expectedOrder(SampleList.items(), view: big).map { "big/" + $0["id"].idString }
        #expect(!expected.isEmpty && expected.count < SampleList.items().count)
        check.expectOrder(expected)
        check.expectSections(try await composite.sectionInfo(view: nil).sections)
        #expect(check.violations == [])
        let outsider = try #require(SampleList.items().first { $0["kind"] != .string("big") })
        await #expect(throws: DataMediatorError.self) {
            _ = try await composite.locate(id: "big/" + outsider["id"].idString, view: nil)
        }
    }

    @Test("a walk follows every rule of a page across children", arguments: [1, 2, 3, 5, 7, 50])
    func aWalkFollowsTheRules(limit: Int) async throws {
        let screen = try Self.screen()
        var check = try await SampleList.walk(screen, view: nil, limit: limit)
        check.expectOrder(try Self.expectedIDs())
        check.expectSections(try await screen.sectionInfo(view: nil).sections)
        #expect(check.violations == [])
        // Ids and section ids carry the child's name.
        #expect(check.sections.first.map { [$0.id, $0.title ?? ""] } == ["welcome/hello", "Welcome"])
        #expect(check.sections.contains { $0.id == "top:more" && $0.count == 1 })
        #expect(
            check.sections.allSatisfy {
                $0.id.hasPrefix("welcome/") || $0.id.hasPrefix("top") || $0.id.hasPrefix("all/")
                    || $0.id.hasPrefix("inner/")
            }
        )
    }

    @Test func theMoreCellContinuesTheChildsOwnList() async throws {
        let screen = try Self.screen()
        let walk = try await SampleList.walk(screen, view: nil, limit: 50)
        let more = try #require(walk.items.first { $0.id == "top:more" })
        #expect(more.type == CompositeChild.moreType)
        guard case .object(let data) = more.data, case .string(let cursor)? = data["cursor"] else {
            Issue.record("the more cell holds no cursor: \(more.data)")
            return
        }
        #expect(data["list"] == .string(SampleList.name) && data["view"] == .string("by_group"))
        let page = try await Self.sample.page(view: "by_group", limit: "3", cursor: cursor)
        let ids = SampleList.expectedOrder(SampleList.items(), view: try Self.view("by_group")).map {
            $0["id"].idString
        }
        #expect(page.items.map(\.id) == Array(ids[5..<8]))
    }

    @Test func everyItemIsLocatedWhereTheWalkServedIt() async throws {
        let screen = try Self.screen()
        let walk = try await SampleList.walk(screen, view: nil, limit: 4)
        var starts: [Int] = []
        var total = 0
        for section in walk.sections {
            starts.append(total)
            total += section.count
        }
        for (position, item) in walk.items.enumerated() {
            let location = try await screen.locate(id: item.id, view: nil)
            let section = try #require(starts.lastIndex { $0 <= position })
            #expect(location.position == position, "\(item.id)")
            #expect(location.sectionIndex == section && location.itemIndex == position - starts[section], "\(item.id)")
            #expect(location.sectionID == walk.sections[section].id)
            // The located cursor's page starts with the item, and the walk goes on from there.
            let page = try await screen.page(view: nil, limit: "2", cursor: location.cursor)
            #expect(page.items.map(\.id) == walk.items.dropFirst(position).prefix(2).map(\.id), "\(item.id)")
        }
        for missing in ["top/" + (try Self.expectedIDs()[8]).dropFirst(4), "nobody/1", "inner/days/zzz", "all", ""] {
            await #expect(throws: DataMediatorError.self, "\(missing)") {
                _ = try await screen.locate(id: String(missing), view: nil)
            }
        }
    }

    /// A provider that counts how often its sections are counted, its windows read and its
    /// version asked.
    final class CountedProvider: DataProvider, SectionInfoProvider {
        let inner = ArrayDataProvider(items: SampleList.items(), idField: "id", views: SampleList.views)
        let counted = Mutex(0)
        let windows = Mutex(0)
        let versions = Mutex(0)

        func window(of view: View, from start: Position?, inclusive: Bool, limit: Int) async throws -> Window {
            windows.withLock { $0 += 1 }
            return try await inner.window(of: view, from: start, inclusive: inclusive, limit: limit)
        }

        func window(of view: View, before start: Position?, inclusive: Bool, limit: Int) async throws -> Window {
            windows.withLock { $0 += 1 }
            return try await inner.window(of: view, before: start, inclusive: inclusive, limit: limit)
        }

        func locate(id: String, in view: View) async throws -> Location? { try await inner.locate(id: id, in: view) }

        func currentVersion() async throws -> Int64 {
            versions.withLock { $0 += 1 }
            return 0
        }

        func sectionCounts(of view: View) async throws -> SectionCounts {
            counted.withLock { $0 += 1 }
            return try await inner.sectionCounts(of: view)
        }
    }

    @Test func aLookupAsksTheChildItsIdNamesAndCountsOnlyTheChildrenBeforeAFoundItem() async throws {
        let providers = (0..<3).map { _ in CountedProvider() }
        let children = try ["a", "b", "c"].enumerated().map { index, name in
            CompositeChild(
                name: name,
                content: .list(
                    ListAdapter(definition: SampleList.definition, provider: providers[index], signer: Self.signer),
                    view: try Self.view("flat")
                )
            )
        }
        let screen = ListAdapter.composite(name: "screen", title: "Screen", children: children, signer: Self.signer)
        func counts() -> [Int] { providers.map { $0.counted.withLock { $0 } } }
        let id = SampleList.items()[4]["id"].idString
        for missing in ["nobody/\(id)", "b/nobody", "\(id)"] {
            await #expect(throws: DataMediatorError.self) { _ = try await screen.locate(id: missing, view: nil) }
        }
        #expect(counts() == [0, 0, 0])
        _ = try await screen.locate(id: "a/\(id)", view: nil)
        #expect(counts() == [0, 0, 0])
        let found = try await screen.locate(id: "c/\(id)", view: nil)
        #expect(counts() == [1, 1, 0])
        #expect(
            found.position == 2 * SampleList.items().count
                + (try await Self.sample.locate(id: id, view: "flat")).position
        )
    }

    @Test func aCappedChildNeverPagesPastItsCapAndMoreOnlyWhenThereIsMore() async throws {
        // Capped at the child's size and beyond it: no more cell.
        let count = SampleList.items().count
        for cap in [count, count + 10] {
            let screen = ListAdapter.composite(
                name: "s",
                title: "S",
                children: [
                    CompositeChild(
                        name: "c",
                        content: .list(Self.sample, view: try Self.view("flat")),
                        cap: cap,
                        more: true
                    )
                ],
                signer: Self.signer
            )
            let walk = try await SampleList.walk(screen, view: nil, limit: 10)
            #expect(walk.items.count == count && !walk.items.contains { $0.type == CompositeChild.moreType })
            #expect(walk.violations == [])
        }
        // The last child is capped: the page with its last item has no loading section
        // unless the more cell follows.
        let capped = ListAdapter.composite(
            name: "s",
            title: "S",
            children: [
                Self.welcome(1),
                CompositeChild(name: "c", content: .list(Self.sample, view: try Self.view("flat")), cap: 2),
            ],
            signer: Self.signer
        )
        let page = try await capped.page(view: nil, limit: "3", cursor: nil)
        #expect(page.items.map(\.id).count == 3 && page.next == nil && page.sections.allSatisfy { $0.kind == .items })
    }

    @Test func aCursorOfTheCompositeIsRefusedElsewhereAndAForgedOneIsRefused() async throws {
        let screen = try Self.screen()
        let page = try await screen.page(view: nil, limit: "3", cursor: nil)
        let next = try #require(page.next)
        await #expect(throws: DataMediatorError.self) {
            _ = try await Self.sample.page(view: nil, limit: nil, cursor: next)
        }
        // A cursor signed for the composite's view but holding a position of the wrong shape.
        let forged = Self.signer.sign(
            Cursor(
                list: "screen",
                view: try screen.definition.view(named: nil).cursorBinding,
                position: Position([.array([.integer(1), .integer(0), .array([.integer(1)])])]),
                inclusive: false
            )
        )
        let error = await #expect(throws: DataMediatorError.self) {
            _ = try await screen.page(view: nil, limit: nil, cursor: forged)
        }
        #expect(error?.code == .badCursor)
    }
}
