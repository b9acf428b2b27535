import DataMediator
import DataMediatorTesting
import Testing

/// The rules of API.md "A page", checked over whole walks of the in-memory provider.
@Suite struct PageRulesTests {
    let items = SampleList.items()
    let adapter: ListAdapter

    init() {
        let provider = ArrayDataProvider(items: SampleList.items(), idField: "id", views: SampleList.views, version: 42)
        adapter = ListAdapter(
            definition: SampleList.definition,
            provider: provider,
            signer: CursorSigner(secret: SampleList.secret)
        )
    }

    @Test(
        "every walk serves each item once, in view order, with sections and loading right",
        arguments: ["by_group", "by_day", "flat", "positive"],
        [1, 2, 3, 5, 7, 10]
    )
    func walkFollowsEveryRule(view: String, limit: Int) async throws {
        var check = try await SampleList.walk(adapter, view: view, limit: limit)
        let definition = try SampleList.definition.view(named: view)
        check.expectOrder(SampleList.expectedOrder(items, view: definition).map { $0["id"].idString })
        check.expectSections(try await adapter.sectionInfo(view: view).sections)
        #expect(check.violations == [])
        #expect(check.pageCount == max(1, (check.items.count + limit - 1) / limit))
    }

    @Test func aSectionCutByAPageContinuesOnTheNext() async throws {
        // by_group with limit 3: the first group has more than 3 items, so it is cut.
        let first = try await adapter.page(view: "by_group", limit: "3", cursor: nil)
        let second = try await adapter.page(view: "by_group", limit: "3", cursor: first.next)
        #expect(first.sections.first?.continues == false)
        #expect(second.sections.first?.id == first.sections.first(where: { $0.kind == .items })?.id)
        #expect(second.sections.first?.continues == true)
    }

    @Test func aPageEndingExactlyAtASectionEndDoesNotContinueIt() async throws {
        let definition = SampleList.definition
        let adapter = ListAdapter(
            definition: ListDefinition(
                name: definition.name,
                title: definition.title,
                idField: "id",
                views: definition.views,
                limits: PageLimits(maximumLimit: 1000)
            ),
            provider: ArrayDataProvider(items: items, idField: "id", views: SampleList.views),
            signer: CursorSigner(secret: SampleList.secret)
        )
        let info = try await adapter.sectionInfo(view: "by_group")
        let firstCount = try #require(info.sections.first?.count)
        let first = try await adapter.page(view: "by_group", limit: String(firstCount), cursor: nil)
        #expect(first.sections.filter { $0.kind == .items }.count == 1)
        let second = try await adapter.page(view: "by_group", limit: String(firstCount), cursor: first.next)
        #expect(second.sections.first?.id == info.sections[1].id)
        #expect(second.sections.first?.continues == false)
    }

    @Test func aViewWithoutSectionsHasOneSectionNamedAfterTheView() async throws {
        let first = try await adapter.page(view: "flat", limit: "4", cursor: nil)
        let second = try await adapter.page(view: "flat", limit: "4", cursor: first.next)
        #expect(first.sections.map(\.id) == ["flat", "loading"])
        #expect(first.sections.first?.continues == false)
        #expect(second.sections.first?.id == "flat")
        #expect(second.sections.first?.continues == true)
    }

    @Test func theLoadingSectionCarriesTheNextCursor() async throws {
        let page = try await adapter.page(view: nil, limit: "1", cursor: nil)
        let loading = try #require(page.sections.last)
        #expect(loading.kind == .loading && loading.id == "loading" && loading.title == nil)
        #expect(loading.items.map(\.type) == ["loading"])
        #expect(loading.items.first?.data == .object(["next": .string(try #require(page.next))]))
        #expect(page.items.count == 1)
    }

    @Test func theLastPageHasNoLoadingSectionAndNoNext() async throws {
        let page = try await adapter.page(view: "flat", limit: "10", cursor: nil)
        var last = page
        while let next = last.next { last = try await adapter.page(view: "flat", limit: "10", cursor: next) }
        #expect(last.next == nil)
        #expect(!last.sections.contains { $0.kind == .loading })
    }

    @Test func anEmptyListAnswersNoSectionsAndNoNext() async throws {
        let empty = ListAdapter(
            definition: SampleList.definition,
            provider: ArrayDataProvider(items: [], idField: "id", views: SampleList.views),
            signer: CursorSigner(secret: SampleList.secret)
        )
        for view in SampleList.views {
            let page = try await empty.page(view: view.name, limit: nil, cursor: nil)
            #expect(page.sections.isEmpty)
            #expect(page.next == nil)
            #expect(try await empty.sectionInfo(view: view.name).sections.isEmpty)
        }
    }

    @Test func thePageCarriesTheSourceVersionAndTheLimitUsed() async throws {
        let page = try await adapter.page(view: nil, limit: "999999999999999999999999", cursor: nil)
        #expect(page.version == 42)
        #expect(page.limit == 10)
        #expect(page.items.count == 10)
        #expect(try await adapter.page(view: nil, limit: nil, cursor: nil).limit == 5)
    }

    @Test(
        "a bad limit is refused",
        arguments: ["", "0", "-1", "-0", "1.5", "abc", "+3", " 3", "3 ", "1e3", "0x10", "٣"]
    )
    func badLimitIsRefused(raw: String) async throws {
        let error = await #expect(throws: DataMediatorError.self) {
            _ = try await adapter.page(view: nil, limit: raw, cursor: nil)
        }
        #expect(error?.code == .badLimit)
    }

    @Test func anUnknownViewIsRefused() async throws {
        for name in ["nope", "", "BY_GROUP"] {
            let error = await #expect(throws: DataMediatorError.self) {
                _ = try await adapter.page(view: name, limit: nil, cursor: nil)
            }
            #expect(error?.code == .unknownView)
        }
    }

    @Test func cellTypesComeFromTheFieldAndAreAllDeclared() async throws {
        let check = try await SampleList.walk(adapter, view: "positive", limit: 10)
        let view = try SampleList.definition.view(named: "positive")
        #expect(Set(check.items.map(\.type)) == ["big", "small", "other"])
        #expect(view.cellTypes == ["big", "small", "other", "loading"])
        #expect(
            check.items.allSatisfy { item in
                guard case .integer(let score) = item.data.objectValue?["score"] else { return false }
                return score > 0
            }
        )
    }
}
