import DataMediator
import DataMediatorTesting
import GRDB
import Testing

@testable import DataMediatorSQL
@testable import DataMediatorSQLite

/// How the SQLite store places an item among sections and counts sections: seeks on the
/// view's index, and the counts of section keys it falls back to.
@Suite struct SQLiteLocateTests {
    static let sectioned = SampleList.views.filter { $0.section != nil }

    /// Every item's section and index in it, read by seeks, are its place in the walk of
    /// the view; the null and empty section (which pages show as one) are left to the count.
    @Test(arguments: sectioned)
    func seeksPlaceEveryItemAsTheWalkDoes(view: View) async throws {
        let fixture = try SQLiteFixture()
        let provider = try fixture.provider()
        let adapter = try fixture.adapter()
        let rule = try #require(view.section)
        let check = try await SampleList.walk(adapter, view: view.name, limit: 7)
        var position = 0
        var seeked = 0
        for (sectionIndex, section) in check.sections.enumerated() {
            for itemIndex in 0..<section.count {
                let item = try #require(
                    try await provider.locate(id: check.items[position].id, in: view)?.item
                )
                let key = rule.key(for: item[rule.field])
                let itemPosition = position
                let place = try await fixture.store.transactions.read { session -> [Int]? in
                    guard let sections = try await provider.reader.sectionsBefore(key, in: view, limit: 10_000, session)
                    else { return nil }
                    return [
                        sections,
                        itemPosition - (try await provider.reader.rowsBefore(section: key, in: view, session)),
                    ]
                }
                if key == .null || key == .string("") {
                    #expect(place == nil)
                } else if let place {
                    #expect(place == [sectionIndex, itemIndex], "\(item)")
                    seeked += 1
                }
                position += 1
            }
        }
        #expect(seeked > check.items.count / 2, "most items were placed by seeks")
    }

    /// With fewer seeks allowed than there are sections before an item, the place is counted
    /// from section keys instead, and is the same.
    @Test(arguments: sectioned)
    func beyondTheSeekLimitTheCountGivesTheSamePlace(view: View) async throws {
        let fixture = try SQLiteFixture()
        let provider = try fixture.provider()
        var fallbacks = 0
        for item in SampleList.items() {
            let id = item["id"].idString
            let seeked = try await provider.reader.locate(id: id, in: view, maximumSectionSeeks: 10_000)
            let counted = try await provider.reader.locate(id: id, in: view, maximumSectionSeeks: 1)
            #expect(seeked == counted, "\(id)")
            if let counted, counted.sectionIndex > 1 { fallbacks += 1 }
        }
        #expect(fallbacks > 0)
    }

    /// Sections counted one at a time on the index are those the grouped query counts, for
    /// the sample views and for NULL and empty keys (one section on pages).
    @Test(arguments: sectioned)
    func seeksCountSectionsAsTheGroupedQueryDoes(view: View) async throws {
        for items in [SampleList.items(), SampleList.itemsWithNullAndEmptyGroups()] {
            let fixture = try SQLiteFixture(items: items)
            let provider = try fixture.provider()
            let seeked = try await fixture.store.transactions.read { session in
                try await provider.reader.sectionCountsBySeeks(of: view, limit: 10_000, session)
            }
            #expect(seeked != nil)
            let counted = try await provider.reader.sectionCounts(of: view, maximumSections: 0)
            #expect(try await provider.sectionCounts(of: view) == counted)
            #expect(counted.entries.map(\.count).reduce(0, +) == items.count)
        }
    }

    /// Over a query there is no index to seek on: sections and places are counted by the
    /// grouped queries, and are the same as over the table.
    @Test(arguments: sectioned)
    func overAQuerySectionsAreCountedNotSought(view: View) async throws {
        let fixture = try SQLiteFixture()
        let table = try fixture.provider()
        let query = try fixture.provider(
            StoreSource(
                kind: .query("SELECT * FROM sample"),
                fieldTypes: SQLiteFixture.source.fieldTypes,
                versionTables: ["sample"]
            )
        )
        let seeked = try await fixture.store.transactions.read { session in
            try await query.reader.sectionCountsBySeeks(of: view, limit: 10_000, session)
        }
        #expect(seeked == nil)
        #expect(try await query.sectionCounts(of: view).entries == (try await table.sectionCounts(of: view).entries))
        let id = SampleList.items()[40]["id"].idString
        let place = try await fixture.store.transactions.read { session in
            try await query.reader.sectionsBefore(.string("beta"), in: view, limit: 10_000, session)
        }
        #expect(place == nil)
        let fromQuery = try #require(try await query.locate(id: id, in: view))
        let fromTable = try #require(try await table.locate(id: id, in: view))
        #expect(
            [fromQuery.position, fromQuery.sectionIndex, fromQuery.itemIndex]
                == [fromTable.position, fromTable.sectionIndex, fromTable.itemIndex]
        )
    }

    /// A column of the source named as the grouped count's own result (`section_key`) is
    /// not what it groups by (review 107 #4: SQLite grouped by the column, and the counts
    /// were another view's).
    @Test(arguments: sectioned)
    func aColumnNamedSectionKeyIsNotGroupedBy(view: View) async throws {
        let fixture = try SQLiteFixture()
        let table = try fixture.provider()
        let sought = try await table.sectionCounts(of: view)
        try await fixture.store.database.write { db in
            try db.execute(sql: "ALTER TABLE sample ADD COLUMN section_key TEXT")
            try db.execute(sql: "UPDATE sample SET section_key = rowid % 2")
        }
        // Grouped, as a query list's are, or a table's of more sections than are sought.
        let grouped = try await table.reader.sectionCounts(of: view, maximumSections: 0)
        #expect(grouped.entries == sought.entries)
    }

    /// The marks of a view's outline (the sort keys of every 128th item, read once per
    /// stamp to place items and count sections) come from the view's index alone: the pass
    /// over the whole view reads no table row, and marks the same items a walk does.
    @Test(arguments: SampleList.views)
    func outlineMarksReadTheViewsIndexAlone(view: View) async throws {
        let fixture = try SQLiteFixture(items: SampleList.items(count: 300))
        let provider = try fixture.provider()
        let statement = provider.reader.marksStatement(of: view)
        let plan = try fixture.store.queryPlan(statement.sql, statement.arguments).joined(separator: "; ")
        #expect(plan.contains("USING COVERING INDEX"), "\(statement.sql): \(plan)")
        let marks = try await fixture.store.transactions.read { session in
            try await session.items(
                statement.sql,
                statement.arguments,
                layout: statement.layout,
                types: [FieldType?](repeating: nil, count: statement.layout.names.count)
            )
        }
        // The whole view, in order: every item of the 300 or the filter's.
        let items = try await provider.reader.window(of: view, from: nil, inclusive: true, limit: 301).items
        #expect(marks.count == (items.count + 127) / 128 && marks.count > 1)
        for (index, mark) in marks.enumerated() {
            #expect(view.position(of: mark) == view.position(of: items[index * 128]), "mark \(index)")
        }
    }

    /// A lookup with the view's outline kept reads, on a page reader: the item with the
    /// tables' stamp and the store's version in one statement, and the rows from the mark
    /// before it counted on the view's index alone, in one statement however many index
    /// ranges the view's windows have (no table row read but the mark's own).
    @Test(arguments: ["flat", "by_group"])
    func aKeptLookupCountsOnTheIndexAlone(view name: String) async throws {
        let items = SampleList.items(count: 300)
        let fixture = try SQLiteFixture(items: items)
        let provider = try fixture.provider()
        let view = try SampleList.definition.view(named: name)
        _ = try await provider.reader.outline(of: view)
        let trace = try PageReaderTrace(provider)
        var ranges = 0
        for index in stride(from: 130, to: 250, by: 17) {
            trace.clear()
            let id = SampleList.expectedOrder(items, view: view)[index]["id"].idString
            #expect(try await provider.locate(id: id, in: view)?.position == index)
            let read = trace.statements.filter { $0.hasPrefix("SELECT") }
            #expect(read.count == 2, "\(read)")
            let (first, count) = (read.first ?? "", read.last ?? "")
            #expect(first.contains(ServiceTables.stamps) && first.contains(ServiceTables.versions), "\(first)")
            #expect(first.hasSuffix("LIMIT 2"), "\(read)")
            #expect(count.hasPrefix("SELECT COALESCE(SUM("), "\(count)")
            ranges = max(ranges, count.ranges(of: " UNION ALL ").count + 1)
            let nulls = [JSONValue](repeating: .null, count: count.filter { $0 == "?" }.count)
            let plan = try fixture.store.queryPlan(count, nulls).joined(separator: "; ")
            // A range of one row (the mark's own) may be read by its id.
            #expect(plan.contains("USING COVERING INDEX") || plan.contains("(id=?)"), "\(count): \(plan)")
        }
        // The scores may be NULL (nothing tells the store otherwise): a mark's windows
        // are several ranges, read in one statement.
        #expect(ranges > 1)
    }
}
