import DataMediator
import DataMediatorSQL
import DataMediatorTesting
import Foundation
import GRDB
import Testing

@testable import DataMediatorSQLite

/// The one-read way a write finds the section before an item's section (`section_after`)
/// agrees with reading the whole view, for every kind of value SQLite sorts: NULL,
/// integers, reals, text (prefixes of each other, non-ASCII, the greatest scalar), in both
/// directions, grouped by value and by a prefix, with and without a filter. (No two
/// values share a section id here: NULL and "", or 1 and "1", would, and such sections
/// are not contiguous.)
@Suite struct SectionBoundaryTests {
    static let tags: [JSONValue] = [
        .null, .integer(-3), .integer(1), .integer(7), .number(2.5), .string("a"), .string("ab"),
        .string("abc"), .string("b"), .string("é"), .string("\u{10FFFF}x"), .string("\u{D7FF}z"),
    ]
    static let stamps: [JSONValue] = [
        .null, .integer(2025), .string("2026"), .string("2025-12-31T23:59:59Z"), .string("2026-01-01T00:00:00Z"),
        .string("2026-01-01T10:00:00Z"), .string("2026-01-02"), .string("2026-01-0"), .string("2026-01-01\u{10FFFF}"),
        .string("2027-06-01T00:00:00Z"), .string("2027-06-01T00:00:00Z~"), .string("2026-01-0\u{10FFFF}T1"),
    ]

    static var views: [View] {
        var views: [View] = []
        for field in ["tag", "stamp"] {
            for grouping in SectionRule.Grouping.allCases {
                for order in [SortKey.Order.ascending, .descending] {
                    for filtered in [false, true] {
                        views.append(
                            View(
                                name: "\(field)_\(grouping.rawValue)_\(order)_\(filtered)",
                                sort: [SortKey(field, order), SortKey("id")],
                                idField: "id",
                                section: SectionRule(field: field, grouping: grouping),
                                filter: filtered ? [FilterCondition(field: "weight", op: .gt, value: .integer(2))] : [],
                                cellType: .fixed("mark"),
                                fields: ["tag", "stamp", "weight"]
                            )
                        )
                    }
                }
            }
        }
        return views
    }

    @Test func theRowBeforeEachSectionIsFoundInOneRead() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dm-boundary-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteStore(path: directory.appendingPathComponent("store.sqlite").path)
        var random = SplitMix64(seed: 11)
        let rows: [[DatabaseValue]] = (0..<400).map { index in
            [
                String(format: "m%03d", index).databaseValue,
                Self.tags[Int.random(in: 0..<Self.tags.count, using: &random)].databaseValue,
                Self.stamps[Int.random(in: 0..<Self.stamps.count, using: &random)].databaseValue,
                Int.random(in: 0..<5, using: &random).databaseValue,
            ]
        }
        try await store.database.write { db in
            // Untyped columns keep each value's own storage class, as SQLite sorts it.
            try db.execute(sql: "CREATE TABLE marks (id TEXT PRIMARY KEY NOT NULL, tag, stamp, weight INTEGER)")
            for row in rows {
                try db.execute(
                    sql: "INSERT INTO marks (id, tag, stamp, weight) VALUES (?, ?, ?, ?)",
                    arguments: StatementArguments(row.map { $0 as (any DatabaseValueConvertible)? })
                )
            }
        }
        let list = ListDefinition(
            name: "marks",
            title: "Marks",
            idField: "id",
            views: Self.views,
            limits: PageLimits(defaultLimit: 10, maximumLimit: 1000)
        )
        let provider = try store.provider(
            for: list,
            source: StoreSource(kind: .table("marks"), fieldTypes: ["id": .string, "weight": .integer])
        )
        for view in Self.views {
            let items = try await provider.window(of: view, from: nil, inclusive: false, limit: 1000).items
            let rule = try #require(view.section)
            var seen: Set<String> = []
            var checked = 0
            for (index, item) in items.enumerated() {
                let section = view.sectionID(of: item)
                guard seen.insert(section).inserted else { continue }
                let expected = index == 0 ? nil : items[index - 1]["id"].idString
                let found = try await store.transactions.read { session in
                    try await provider.reader.lastItem(
                        beforeSection: rule.key(for: item[rule.field]),
                        in: view,
                        session
                    )
                }
                #expect(found?["id"].idString == expected, "\(view.name), section '\(section)'")
                // Each statement seeks into the view's index: no scan, no sort.
                for query in provider.reader.beforeSectionQueries(rule.key(for: item[rule.field]), in: view) {
                    let plan = try store.queryPlan(query.sql, query.arguments).joined(separator: "; ")
                    #expect(plan.hasPrefix("SEARCH") && plan.contains("INDEX"), "\(query.sql): \(plan)")
                    #expect(!plan.contains("SCAN") && !plan.contains("TEMP B-TREE"), "\(query.sql): \(plan)")
                }
                checked += 1
            }
            // Sections are contiguous in the walk: none comes back after another began.
            let runs = zip(items, items.dropFirst()).filter { view.sectionID(of: $0) != view.sectionID(of: $1) }.count
            #expect(runs + 1 == checked, "\(view.name)")
            #expect(checked > 3, "\(view.name)")
        }
    }

    @Test func theSuccessorOfAPrefixSkipsSurrogatesAndEndsAtTheLastScalar() {
        #expect(KeysetSQL.successor(of: "2026-01-01") == "2026-01-02")
        #expect(KeysetSQL.successor(of: "a\u{D7FF}") == "a\u{E000}")
        #expect(KeysetSQL.successor(of: "a\u{10FFFF}") == nil)
    }
}
