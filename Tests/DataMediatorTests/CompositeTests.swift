import DataMediator
import DataMediatorTesting
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
                view: "all",
                position: Position([.array([.integer(1), .integer(0), .array([.integer(1)])])]),
                inclusive: false,
                continuing: nil
            )
        )
        let error = await #expect(throws: DataMediatorError.self) {
            _ = try await screen.page(view: nil, limit: nil, cursor: forged)
        }
        #expect(error?.code == .badCursor)
    }

    @Test func aWriteToAnyChildMovesTheCompositesVersionAndItsChangesSayReload() async throws {
        func notes(_ name: String) -> ListAdapter {
            let definition = ListDefinition(
                name: name,
                title: name,
                idField: "id",
                revisionField: "rev",
                views: [
                    View(
                        name: "all",
                        sort: [SortKey("title")],
                        idField: "id",
                        cellType: .fixed("note"),
                        fields: ["title"]
                    )
                ],
                isWritable: true,
                rules: FieldRules(types: ["title": .string])
            )
            let store = InMemoryStore(definition: definition, columns: ["title"])
            return ListAdapter(
                definition: definition,
                provider: store,
                signer: Self.signer,
                writer: store,
                changeLog: store
            )
        }
        let (first, second) = (notes("first"), notes("second"))
        for _ in 0..<3 { _ = try await first.create(body: .object(["data": .object(["title": .string("a")])])) }
        let screen = ListAdapter.composite(
            name: "s",
            title: "S",
            children: [
                CompositeChild(name: "one", content: .list(first, view: try first.definition.view(named: nil))),
                Self.welcome(1),
                CompositeChild(name: "two", content: .list(second, view: try second.definition.view(named: nil))),
            ],
            signer: Self.signer
        )
        let before = try await screen.page(view: nil, limit: nil, cursor: nil).version
        #expect(before == 3)
        // The child with the lower version moves: so does the composite.
        _ = try await second.create(body: .object(["data": .object(["title": .string("b")])]))
        let after = try await screen.page(view: nil, limit: nil, cursor: nil)
        #expect(after.version == 4 && after.items.map(\.id).last?.hasPrefix("two/") == true)
        let changes = try await screen.changes(view: nil, since: String(before), limit: nil)
        #expect(changes.entries.map(\.operation) == [.reload] && changes.version == 4)
        #expect(try await screen.changes(view: nil, since: "4", limit: nil).entries.isEmpty)
        // Composites are read-only.
        let refused = await #expect(throws: DataMediatorError.self) {
            _ = try await screen.create(body: .object(["data": .object([:])]))
        }
        #expect(refused?.code == .readOnly)
    }
}
