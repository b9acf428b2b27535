import DataMediator
import DataMediatorSQL
import DataMediatorTesting
import PostgresNIO
import Testing

@testable import DataMediatorPostgres

/// How the PostgreSQL store places an item among sections: hops from section to section
/// on the view's index in one recursive statement, and the count of section keys it falls
/// back to.
@Suite struct PostgresLocateTests {
    static let sectioned = SampleList.views.filter { $0.section != nil }

    /// Every item of every sectioned view is placed the same with hops as with the count;
    /// the hops answer for every section key but the NULL and empty ones.
    @Test(arguments: sectioned)
    func hopsPlaceEveryItemAsTheCountDoes(view: View) async throws {
        let fixture = try await PostgresFixture()
        let provider = try await fixture.store.provider(for: SampleList.definition, source: SQLiteFixture.source)
        try await fixture.insert(SampleList.items())
        let rule = try #require(view.section)
        var hopped = 0
        for item in SampleList.items() {
            let id = item["id"].idString
            let withHops = try await provider.reader.locate(id: id, in: view, maximumSectionSeeks: 10_000)
            let counted = try await provider.reader.locate(id: id, in: view, maximumSectionSeeks: 0)
            #expect(withHops == counted, "\(id)")
            let key = rule.key(for: try #require(withHops).item[rule.field])
            let sections = try await fixture.store.transactions.read { session in
                try await provider.reader.sectionsBefore(key, in: view, limit: 10_000, session)
            }
            if key == .null || key == .string("") {
                #expect(sections == nil)
            } else {
                #expect(sections == withHops?.sectionIndex, "\(id)")
                hopped += 1
            }
        }
        #expect(hopped > SampleList.items().count / 2)
    }

    /// Sections walked one at a time on the index are those the grouped query counts, for
    /// the sample views and for NULL and empty keys (one section on pages).
    @Test(arguments: sectioned)
    func hopsCountSectionsAsTheGroupedQueryDoes(view: View) async throws {
        for items in [SampleList.items(), SampleList.itemsWithNullAndEmptyGroups()] {
            let fixture = try await PostgresFixture()
            let provider = try await fixture.store.provider(for: SampleList.definition, source: SQLiteFixture.source)
            try await fixture.insert(items)
            let hopped = try await fixture.store.transactions.read { session in
                try await provider.reader.sectionCountsBySeeks(of: view, limit: 10_000, session)
            }
            #expect(hopped != nil)
            let counted = try await provider.reader.sectionCounts(of: view, maximumSections: 0)
            #expect(try await provider.sectionCounts(of: view) == counted)
            #expect(counted.entries.map(\.count).reduce(0, +) == items.count)
        }
    }

    /// Columns of the list's table named as the walk's own names of earlier releases (`k`,
    /// `n`) are not taken for them (review 107 #3: an integer `k` made `/sections` and
    /// lookups `503` for good, a text one counted wrong).
    @Test(arguments: sectioned)
    func columnsNamedAsTheWalksNamesAreNotTakenForThem(view: View) async throws {
        let fixture = try await PostgresFixture()
        let provider = try await fixture.store.provider(for: SampleList.definition, source: SQLiteFixture.source)
        try await fixture.insert(SampleList.items())
        try await fixture.store.primary.query("ALTER TABLE sample ADD COLUMN k integer DEFAULT 7, ADD COLUMN n text")
        let hopped = try await fixture.store.transactions.read { session in
            try await provider.reader.sectionCountsBySeeks(of: view, limit: 10_000, session)
        }
        let counted = try await provider.reader.sectionCounts(of: view, maximumSections: 0)
        let rule = try #require(view.section)
        let merged = hopped.map { SectionCounts(merging: $0, by: rule, version: counted.version) }
        #expect(merged == counted)
        let item = SampleList.items()[40]
        let withHops = try await provider.reader.locate(id: item["id"].idString, in: view, maximumSectionSeeks: 10_000)
        let withCount = try await provider.reader.locate(id: item["id"].idString, in: view, maximumSectionSeeks: 0)
        #expect(withHops != nil && withHops == withCount)
    }

    /// Over a query there is no index to seek on: sections are grouped, and the same.
    @Test func overAQuerySectionsAreGroupedNotWalked() async throws {
        let fixture = try await PostgresFixture()
        let table = try await fixture.store.provider(for: SampleList.definition, source: SQLiteFixture.source)
        try await fixture.insert(SampleList.items())
        let query = try await fixture.store.provider(
            for: SampleList.definition,
            source: StoreSource(
                kind: .query("SELECT * FROM sample"),
                fieldTypes: SQLiteFixture.source.fieldTypes,
                versionTables: ["sample"]
            )
        )
        for view in Self.sectioned {
            let walked = try await fixture.store.transactions.read { session in
                try await query.reader.sectionCountsBySeeks(of: view, limit: 10_000, session)
            }
            #expect(walked == nil)
            #expect(
                try await query.sectionCounts(of: view).entries == (try await table.sectionCounts(of: view).entries)
            )
        }
    }
}
