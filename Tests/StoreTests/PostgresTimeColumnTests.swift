import DataMediator
import DataMediatorPostgres
import DataMediatorTesting
import Foundation
import PostgresNIO
import Testing

@testable import DataMediatorSQL

/// A table with PostgreSQL time columns (`timestamptz`, `date`, `timestamp(0)`), as most
/// tables other programs write have (`created_at timestamptz DEFAULT now()`): they were
/// refused at start. Now they are shown as ISO 8601 text, views sort, section, slice and
/// open at an item by them in the text's order (which is the times'), and writes take
/// ISO 8601 text.
@Suite struct PostgresTimeColumnTests {
    static let fields: [String: FieldType] = [
        "title": .string, "at": .string, "day": .string, "local": .string, "opens": .string,
    ]
    static let shown = ["title", "at", "day", "local", "opens"]

    static let definition = ListDefinition(
        name: "events",
        title: "Events",
        idField: "id",
        revisionField: "rev",
        views: [
            View(
                name: "by_at",
                isDefault: true,
                sort: [SortKey("at", .descending), SortKey("id", .descending)],
                idField: "id",
                section: SectionRule(field: "at", grouping: .day),
                cellType: .fixed("event"),
                fields: shown
            ),
            View(
                name: "by_day",
                sort: [SortKey("day"), SortKey("id")],
                idField: "id",
                cellType: .fixed("event"),
                fields: shown,
                parameters: [ViewParameter(name: "day", field: "day", type: .string, isRequired: false)]
            ),
            View(
                name: "by_local",
                sort: [SortKey("local"), SortKey("id")],
                idField: "id",
                section: SectionRule(field: "local", grouping: .month),
                cellType: .fixed("event"),
                fields: shown
            ),
            View(
                name: "by_opens",
                sort: [SortKey("opens"), SortKey("id")],
                idField: "id",
                cellType: .fixed("event"),
                fields: shown
            ),
        ],
        isWritable: true,
        rules: FieldRules(types: fields)
    )

    static let source = StoreSource(kind: .table("events"), fieldTypes: fields)

    /// A store with a new table `events`, its columns of each time type.
    static func table() async throws -> PostgresFixture {
        let fixture = try await PostgresFixture()
        try await fixture.store.primary.query(
            """
            CREATE TABLE events (id bigserial PRIMARY KEY, title text, at timestamptz NOT NULL DEFAULT now(),
                day date, local timestamp(0), opens time, rev bigint)
            """
        )
        return fixture
    }

    static func adapter(
        over fixture: PostgresFixture,
        _ definition: ListDefinition = definition
    ) async throws
        -> ListAdapter
    {
        try await fixture.store.adapter(
            for: definition,
            source: source,
            signer: CursorSigner(secret: SampleList.secret)
        )
    }

    /// The field `name` of a cell's data.
    static func field(_ name: String, of cell: Cell) -> JSONValue? {
        guard case .object(let data) = cell.data else { return nil }
        return data[name]
    }

    /// Every item of the list as the default view reads it, by id.
    static func items(_ adapter: ListAdapter) async throws -> [Item] {
        var items: [Item] = []
        var cursor: String?
        repeat {
            let page = try await adapter.page(view: "by_day", limit: "50", cursor: cursor)
            items += page.items.map { cell in
                guard case .object(var data) = cell.data else { return Item([:]) }
                data["id"] = .integer(Int64(cell.id) ?? -1)
                return Item(data)
            }
            cursor = page.next
        } while cursor != nil
        return items
    }

    @Test func timeColumnsAreShownAsISOTextAndViewsWalkSectionAndOpenInTheirOrder() async throws {
        let fixture = try await Self.table()
        // Rows another program wrote: times in other zones, several in one second, the
        // infinities, a day and a local time now and then.
        try await fixture.store.primary.query(
            """
            INSERT INTO events (title, at, day, local, opens)
            SELECT 'e' || g,
                CASE WHEN g = 1 THEN 'infinity' WHEN g = 2 THEN '-infinity'
                ELSE TIMESTAMPTZ '2026-11-19 23:04:00.5+02' + (g % 9) * INTERVAL '7 hours' + (g % 4) * INTERVAL '1 microsecond' END,
                CASE WHEN g % 5 = 0 THEN NULL ELSE DATE '2026-11-28' + (g % 3) END,
                CASE WHEN g % 3 = 0 THEN NULL ELSE TIMESTAMP '2026-10-31 08:00:00' + g * INTERVAL '2 days' END,
                CASE WHEN g % 4 = 0 THEN NULL
                ELSE TIME '08:00' + (g % 7) * INTERVAL '1 hour' + (g % 2) * INTERVAL '0.5 seconds' END
            FROM generate_series(1, 40) AS g
            """
        )
        let adapter = try await Self.adapter(over: fixture)
        let items = try await Self.items(adapter)
        #expect(items.count == 40)
        let byTitle = Dictionary(items.map { ($0["title"].idString, $0) }, uniquingKeysWith: { first, _ in first })
        // As PostgreSQL holds them: in UTC with six fractional digits, the date alone, the
        // local time as written (its column keeps whole seconds).
        #expect(byTitle["e9"]?["at"] == .string("2026-11-19T21:04:00.500001Z"), "\(byTitle["e9"] ?? Item([:]))")
        #expect(byTitle["e1"]?["at"] == .string("infinity"))
        #expect(byTitle["e2"]?["at"] == .string("-infinity"))
        #expect(byTitle["e1"]?["day"] == .string("2026-11-29"))
        #expect(byTitle["e5"]?["day"] == .null)
        #expect(byTitle["e1"]?["local"] == .string("2026-11-02T08:00:00"))
        #expect(byTitle["e3"]?["local"] == .null)
        // A time of day as PostgreSQL writes it: the fraction only when there is one.
        #expect(byTitle["e1"]?["opens"] == .string("09:00:00.5"))
        #expect(byTitle["e2"]?["opens"] == .string("10:00:00"))
        #expect(byTitle["e4"]?["opens"] == .null)

        for name in ["by_at", "by_day", "by_local", "by_opens"] {
            let view = try Self.definition.view(named: name)
            let expected = SampleList.expectedOrder(items, view: view).map { $0["id"].idString }
            try await expectWalksAndOpens(adapter, view: name, expected: expected)
        }
        // Sections by the day of a timestamptz (UTC), by the month of a local time.
        let days = try await adapter.sectionInfo(view: "by_at")
        var expectedDays: [(String, Int)] = []
        for item in SampleList.expectedOrder(items, view: try Self.definition.view(named: "by_at")) {
            let key = String(item["at"].idString.prefix(10))
            if expectedDays.last?.0 == key {
                expectedDays[expectedDays.count - 1].1 += 1
            } else {
                expectedDays.append((key, 1))
            }
        }
        #expect(days.sections.map(\.count) == expectedDays.map(\.1), "\(days.sections)")
        #expect(days.sections.first?.count == 1 && days.sections.count == expectedDays.count)
        // The view's outline (every so many items' keys, read in one pass) agrees.
        let provider = try await fixture.store.provider(for: Self.definition, source: Self.source)
        let byAt = try Self.definition.view(named: "by_at")
        let outline = try #require(try await provider.reader.outline(of: byAt))
        let first = try #require(SampleList.expectedOrder(items, view: byAt).first)
        #expect(outline.marks.first?.position == byAt.position(of: first))
        #expect(try await provider.sectionCounts(of: byAt).entries.map(\.count) == expectedDays.map(\.1))
        let months = try await adapter.sectionInfo(view: "by_local")
        #expect(months.sections.map(\.count).reduce(0, +) == 40 && months.sections.count == 4, "\(months.sections)")

        // A slice by a date parameter: its items alone.
        let slice = SliceRequest(parameters: ["day": ["2026-11-29"]])
        var check = try await SampleList.walk(adapter, view: "by_day", limit: 4, slice: slice)
        let sliced = items.filter { $0["day"] == .string("2026-11-29") }
        check.expectOrder(
            SampleList.expectedOrder(sliced, view: try Self.definition.view(named: "by_day")).map { $0["id"].idString }
        )
        #expect(check.violations == [] && !sliced.isEmpty)
        // A day no item has: an empty slice (read with the version in one statement).
        let none = try await adapter.page(
            view: "by_day",
            limit: "5",
            cursor: nil,
            slice: SliceRequest(parameters: ["day": ["1999-01-01"]])
        )
        #expect(none.items.isEmpty)
    }
}
