import DataMediator
import DataMediatorPostgres
import DataMediatorSQL
import DataMediatorSQLite
import DataMediatorTesting
import PostgresNIO
import Testing

/// The providers a list can have.
enum ProviderKind: String, CaseIterable, CustomTestStringConvertible {
    case array
    case sqlite
    /// SQLite with `created` declared `NOT NULL`: `by_day` is then one index range, read
    /// as such (an `around` page in one statement).
    case sqliteCreatedNotNull
    case postgres
    /// PostgreSQL with `created` declared `NOT NULL`, as ``sqliteCreatedNotNull``.
    case postgresCreatedNotNull

    var testDescription: String { rawValue }
}

/// One suite every provider passes: the page rules of API.md over whole walks, view order,
/// section info, and locate, all equal to an order computed without any provider.
@Suite struct ProviderConformanceTests {
    /// Keeps the store's fixture alive while its provider is used.
    final class Subject {
        let adapter: ListAdapter
        let fixture: AnyObject?

        init(_ kind: ProviderKind, items: [Item] = SampleList.items()) async throws {
            let signer = CursorSigner(secret: SampleList.secret)
            switch kind {
            case .array:
                fixture = nil
                let provider = ArrayDataProvider(items: items, idField: "id", views: SampleList.views)
                adapter = ListAdapter(definition: SampleList.definition, provider: provider, signer: signer)
            case .sqlite, .sqliteCreatedNotNull:
                let fixture = try SQLiteFixture(items: items, notNull: kind == .sqlite ? [] : ["created"])
                self.fixture = fixture
                adapter = ListAdapter(
                    definition: SampleList.definition,
                    provider: try fixture.provider(),
                    signer: signer
                )
            case .postgres, .postgresCreatedNotNull:
                // The read URL is the primary's: reads take the replica's path.
                let fixture = try await PostgresFixture(readURL: true)
                self.fixture = fixture
                if kind == .postgresCreatedNotNull {
                    try await fixture.store.primary.query(
                        PostgresQuery(unsafeSQL: SQLiteFixture.createTable(.postgres, notNull: ["created"]))
                    )
                }
                let provider = try await fixture.store.provider(
                    for: SampleList.definition,
                    source: SQLiteFixture.source
                )
                try await fixture.insert(items)
                adapter = ListAdapter(definition: SampleList.definition, provider: provider, signer: signer)
            }
        }
    }

    static let views = SampleList.views.map(\.name)

    @Test("walks follow every page rule in view order", arguments: ProviderKind.allCases, [1, 3, 10])
    func walksFollowThePageRules(kind: ProviderKind, limit: Int) async throws {
        let subject = try await Subject(kind)
        for name in Self.views {
            let view = try SampleList.definition.view(named: name)
            var check = try await SampleList.walk(subject.adapter, view: name, limit: limit)
            check.expectOrder(SampleList.expectedOrder(SampleList.items(), view: view).map { $0["id"].idString })
            check.expectSections(try await subject.adapter.sectionInfo(view: name).sections)
            #expect(check.violations == [], "view \(name)")
        }
    }

    @Test("a slice's walk, sections and places are those of its items alone", arguments: ProviderKind.allCases)
    func slicesAreTheirItemsAlone(kind: ProviderKind) async throws {
        let subject = try await Subject(kind)
        let view = try SampleList.definition.view(named: "by_day")
        for value in SampleList.kinds {
            let slice = SliceRequest(parameters: ["kind": [value]])
            let items = SampleList.items().filter { $0["kind"] == .string(value) }
            var check = try await SampleList.walk(subject.adapter, view: "by_day", limit: 3, slice: slice)
            check.expectOrder(SampleList.expectedOrder(items, view: view).map { $0["id"].idString })
            check.expectSections(try await subject.adapter.sectionInfo(view: "by_day", slice: slice).sections)
            #expect(check.violations == [], "kind \(value)")
            // Places count the slice's items only; an item of another slice is not found in it.
            for (position, cell) in check.items.enumerated() {
                let location = try await subject.adapter.locate(id: cell.id, view: "by_day", slice: slice)
                #expect(location.position == position, "\(cell.id)")
            }
            let outsider = try #require(SampleList.items().first { $0["kind"] != .string(value) })
            await #expect(throws: DataMediatorError.self) {
                _ = try await subject.adapter.locate(id: outsider["id"].idString, view: "by_day", slice: slice)
            }
        }
        // A cursor of one slice is refused on another, and on the whole view.
        let page = try await subject.adapter.page(
            view: "by_day",
            limit: "2",
            cursor: nil,
            slice: SliceRequest(parameters: ["kind": ["big"]])
        )
        let next = try #require(page.next)
        for other in [SliceRequest(parameters: ["kind": ["small"]]), SliceRequest.whole] {
            let error = await #expect(throws: DataMediatorError.self) {
                _ = try await subject.adapter.page(view: "by_day", limit: "2", cursor: next, slice: other)
            }
            #expect(error?.code == .cursorMismatch)
        }
    }

    @Test("locate answers each item's place in the walk", arguments: ProviderKind.allCases)
    func locateMatchesTheWalk(kind: ProviderKind) async throws {
        let subject = try await Subject(kind)
        for name in Self.views {
            let check = try await SampleList.walk(subject.adapter, view: name, limit: 7)
            var position = 0
            for (sectionIndex, section) in check.sections.enumerated() {
                for itemIndex in 0..<section.count {
                    let location = try await subject.adapter.locate(id: check.items[position].id, view: name)
                    #expect(location.item == check.items[position])
                    #expect(
                        [location.sectionIndex, location.itemIndex, location.position] == [
                            sectionIndex, itemIndex, position,
                        ]
                    )
                    let page = try await subject.adapter.page(view: name, limit: "2", cursor: location.cursor)
                    #expect(page.items.first?.id == check.items[position].id)
                    position += 1
                }
            }
        }
    }

    @Test(
        "every provider serves the same cells",
        arguments: [ProviderKind.sqlite, .postgres],
        ["by_group", "by_day", "flat", "positive"]
    )
    func providersAgree(kind: ProviderKind, view: String) async throws {
        let arraySubject = try await Subject(.array)
        let subject = try await Subject(kind)
        let array = try await SampleList.walk(arraySubject.adapter, view: view, limit: 4)
        let other = try await SampleList.walk(subject.adapter, view: view, limit: 4)
        #expect(array.items == other.items)
        #expect(array.items.count > 0)
    }

    @Test("an empty source answers empty pages and sections", arguments: ProviderKind.allCases)
    func emptySource(kind: ProviderKind) async throws {
        let subject = try await Subject(kind, items: [])
        for name in Self.views {
            let page = try await subject.adapter.page(view: name, limit: nil, cursor: nil)
            #expect(page.sections.isEmpty && page.next == nil)
            #expect(try await subject.adapter.sectionInfo(view: name).sections.isEmpty)
        }
    }

    @Test("unknown ids are not found, and integer-looking ids match exactly", arguments: ProviderKind.allCases)
    func unknownIDs(kind: ProviderKind) async throws {
        let subject = try await Subject(kind)
        for id in ["missing", "item-0", "ITEM-01", "item-01 ", "0", "item-01\u{0}", "\u{0}"] {
            let error = await #expect(throws: DataMediatorError.self) {
                _ = try await subject.adapter.locate(id: id, view: nil)
            }
            #expect(error?.code == .unknownItem)
        }
        #expect(try await subject.adapter.locate(id: "item/3", view: nil).item.id == "item/3")
        #expect(try await subject.adapter.locate(id: "ítem-7", view: nil).item.id == "ítem-7")
        let around = await #expect(throws: DataMediatorError.self) {
            _ = try await subject.adapter.page(view: nil, limit: "3", cursor: nil, around: "item-01\u{0}")
        }
        #expect(around?.code == .unknownItem)
    }

    @Test(
        "null and empty section keys are one section, counted and located as pages show it",
        arguments: ProviderKind.allCases
    )
    func nullAndEmptySectionKeys(kind: ProviderKind) async throws {
        let subject = try await Subject(kind, items: SampleList.itemsWithNullAndEmptyGroups())
        for limit in [1, 2, 7] {
            var check = try await SampleList.walk(subject.adapter, view: "by_group", limit: limit)
            let info = try await subject.adapter.sectionInfo(view: "by_group")
            check.expectSections(info.sections)
            #expect(check.violations == [])
            #expect(info.sections.map(\.id) == ["", "a"])
            #expect(info.sections.map(\.count) == [5, 2])
            #expect(info.sections.first?.title == nil)
            for (position, item) in check.items.enumerated() {
                let location = try await subject.adapter.locate(id: item.id, view: "by_group")
                #expect(location.sectionIndex == (position < 5 ? 0 : 1) && location.position == position)
                #expect(location.itemIndex == (position < 5 ? position : position - 5))
            }
        }
    }

    /// "é" as one character and as "e" with a combining accent are one string to Swift and
    /// two to every store (compared by their UTF-8 bytes): as sort keys and section keys
    /// they are two, in byte order, every item served once and found where pages show it.
    @Test("sort keys that differ only in their Unicode form are kept apart", arguments: ProviderKind.allCases)
    func sortKeysThatDifferOnlyInUnicodeForm(kind: ProviderKind) async throws {
        let groups: [JSONValue] = [
            .string("\u{E9}"), .string("e\u{301}"), .string("\u{E9}"), .string("e\u{301}"), .string("f"),
        ]
        let items = SampleList.items(count: 10).enumerated().map { index, item in
            var item = item
            item["group"] = groups[index % groups.count]
            item["score"] = .integer(Int64(index % 2))
            return item
        }
        let subject = try await Subject(kind, items: items)
        let view = try SampleList.definition.view(named: "by_group")
        let expected = SampleList.expectedOrder(items, view: view).map { $0["id"].idString }
        for limit in [1, 2, 3] {
            var check = try await SampleList.walk(subject.adapter, view: "by_group", limit: limit)
            check.expectOrder(expected)
            let info = try await subject.adapter.sectionInfo(view: "by_group")
            check.expectSections(info.sections)
            #expect(check.violations == [], "limit \(limit)")
            #expect(
                info.sections.map { Array($0.id.utf8) } == [
                    Array("e\u{301}".utf8), Array("f".utf8), Array("\u{E9}".utf8),
                ]
            )
        }
        for (position, id) in expected.enumerated() {
            #expect(try await subject.adapter.locate(id: id, view: "by_group").position == position, "\(id)")
            let around = try await subject.adapter.page(view: "by_group", limit: "3", cursor: nil, around: id)
            #expect(around.items.map(\.id) == Array(expected[max(0, position - 1)...].prefix(3)), "around \(id)")
        }
    }
}
