import DataMediator
import DataMediatorSQL
import DataMediatorSQLite
import DataMediatorTesting
import Foundation
import GRDB
import Testing

/// A `string` field over a SQLite `DATETIME` column (NUMERIC affinity) sectioned by year
/// or filtered by a year: SQLite compares a bound text that reads as a number (`'2026'`)
/// as that number there, and every text is greater than every number. `/sections` of a
/// year view counted `[["2026", 0]]` for seven items of three years, lookups gave the
/// wrong place, and `lt "2025"` matched nothing (review 110 #1).
@Suite struct SQLiteDateSectionTests {
    static let fields: [String: FieldType] = ["id": .string, "ts": .string]

    static func view(_ name: String, _ order: SortKey.Order, filter: [FilterCondition] = []) -> View {
        View(
            name: name,
            isDefault: name == "years",
            sort: [SortKey("ts", order)],
            idField: "id",
            section: SectionRule(field: "ts", grouping: .year),
            filter: filter,
            cellType: .fixed("stamp"),
            fields: ["ts"]
        )
    }

    static let definition = ListDefinition(
        name: "d",
        title: "D",
        idField: "id",
        views: [
            view("years", .ascending), view("years_down", .descending),
            view("before", .ascending, filter: [FilterCondition(field: "ts", op: .lt, value: .string("2025"))]),
            view("from", .ascending, filter: [FilterCondition(field: "ts", op: .ge, value: .string("2025"))]),
            // SQLite reads `2025.` as a number too (review 114 #4); bytewise, `2025-...` is before it.
            view("point", .ascending, filter: [FilterCondition(field: "ts", op: .lt, value: .string("2025."))]),
        ]
    )

    static let rows = [
        ("a", "2024-05-01T00:00:00Z"), ("b", "2024-12-31T23:59:59Z"), ("c", "2025-01-01T00:00:00Z"),
        ("d", "2025-06-01T00:00:00Z"), ("e", "2026-03-08T00:00:00Z"), ("f", "2026-03-09T00:00:00Z"),
        ("g", "2026-07-01T00:00:00Z"),
    ]

    @Test func yearSectionsAndFiltersOfADateColumnCountItsTexts() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("dm-years-\(UUID()).sqlite").path
        try await DatabaseQueue(path: path).write { db in
            try db.execute(sql: "CREATE TABLE d (id TEXT PRIMARY KEY, ts DATETIME)")
            for (id, ts) in Self.rows { try db.execute(sql: "INSERT INTO d VALUES (?, ?)", arguments: [id, ts]) }
        }
        let adapter = try SQLiteStore(path: path).adapter(
            for: Self.definition,
            source: StoreSource(kind: .table("d"), fieldTypes: Self.fields),
            signer: CursorSigner(secret: SampleList.secret)
        )
        let ascending = Self.rows.map(\.0)
        for (view, expected) in [("years", ascending), ("years_down", ascending.reversed())] {
            try await expectWalksAndOpens(adapter, view: view, expected: expected)
            let sections = try await adapter.sectionInfo(view: view).sections
            let counts = sections.map { "\($0.id) \($0.count)" }
            let years = view == "years" ? ["2024 2", "2025 2", "2026 3"] : ["2026 3", "2025 2", "2024 2"]
            #expect(counts == years, "\(view)")
        }
        let before = try await adapter.page(view: "before", limit: "20", cursor: nil).items.map(\.id)
        #expect(before == ["a", "b"])
        let from = try await adapter.page(view: "from", limit: "20", cursor: nil).items.map(\.id)
        #expect(from == ["c", "d", "e", "f", "g"])
        let point = try await adapter.page(view: "point", limit: "20", cursor: nil).items.map(\.id)
        #expect(point == ["a", "b", "c", "d"])
    }
}
